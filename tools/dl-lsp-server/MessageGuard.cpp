//===- MessageGuard.cpp - What reaches MLIR's language server -------------===//
//
// Part of dlbridge.
//
// The server keeps stdin and stdout, which become pipes: one thread reads
// the editor's messages and forwards those the server can take, answering
// the others itself; another copies the server's replies to the editor, a
// whole message at a time, so that the two never interleave.
//
//===----------------------------------------------------------------------===//

#include "MessageGuard.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace dlbridge::lsp;
namespace json = llvm::json;

namespace {

/// The server's stack: MLIR's parser recurses once per nesting level.
constexpr size_t kServerStackSize = size_t(1) << 30;

/// JSON-RPC's error codes.
constexpr int64_t kParseError = -32700;
constexpr int64_t kInvalidRequest = -32600;

bool writeAll(int fd, llvm::StringRef bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes = bytes.drop_front(static_cast<size_t>(n));
  }
  return true;
}

/// Reads a line without its line break; false at the end of the input.
bool readLine(std::FILE *in, std::string &line) {
  line.clear();
  for (int c; (c = std::fgetc(in)) != EOF;) {
    if (c == '\n')
      return true;
    line.push_back(static_cast<char>(c));
  }
  return !line.empty();
}

/// Reads one message framed by LSP headers; false at the end of the input.
/// A message whose Content-Length is missing or absurd is skipped, as the
/// server's own reader does.
bool readStandardMessage(std::FILE *in, std::string &body) {
  for (;;) {
    size_t length = 0;
    std::string line;
    bool headers = false;
    while (readLine(in, line)) {
      llvm::StringRef header = llvm::StringRef(line).rtrim('\r');
      if (header.empty() && headers)
        break;
      headers = true;
      if (header.consume_front_insensitive("content-length:"))
        header.trim().getAsInteger(10, length);
    }
    if (!headers)
      return false;
    if (length == 0 || length > (size_t(1) << 30))
      continue;
    body.resize(length);
    if (std::fread(body.data(), 1, length, in) != length)
      return false;
    return true;
  }
}

/// Reads one message of the lit tests' syntax: lines up to `// -----`, with
/// other `//` lines ignored; false at the end of the input.
bool readDelimitedMessage(std::FILE *in, std::string &body) {
  body.clear();
  std::string line;
  bool any = false;
  while (readLine(in, line)) {
    any = true;
    llvm::StringRef text = llvm::StringRef(line).trim();
    if (text.starts_with("//")) {
      if (text == "// -----")
        return true;
      continue;
    }
    body += line;
  }
  return any && !llvm::StringRef(body).trim().empty();
}

/// Where `text` first nests regions, parentheses or brackets deeper than
/// `limit` (strings and `//` comments aside), as an LSP position: an MLIR
/// document, or a JSON message (whose arrays and objects nest the same way).
std::optional<json::Object> findTooDeep(llvm::StringRef text, unsigned limit) {
  unsigned depth = 0;
  int64_t line = 0, column = 0;
  bool inString = false, escaped = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      column = 0;
      inComment = false;
      continue;
    }
    ++column;
    if (inComment)
      continue;
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      inComment = true;
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > limit)
        return json::Object{{"line", line}, {"character", column - 1}};
    } else if ((c == ')' || c == ']' || c == '}') && depth) {
      --depth;
    }
  }
  return std::nullopt;
}

class Guard {
public:
  Guard(const GuardOptions &options, int editorOut, int serverIn)
      : options(options), editorOut(editorOut), serverIn(serverIn) {}

  /// Forwards the editor's messages until its input ends, then closes the
  /// server's input.
  void filterInput(std::FILE *editorIn) {
    std::string message;
    while (options.delimitedInput ? readDelimitedMessage(editorIn, message)
                                  : readStandardMessage(editorIn, message))
      if (admit(message))
        forward(message);
    ::close(serverIn);
  }

  /// Copies the server's replies to the editor, one whole message at a time.
  void forwardOutput(int serverOut) {
    std::FILE *in = ::fdopen(serverOut, "rb");
    std::string body;
    while (in && readStandardMessage(in, body))
      sendRaw(body);
    if (in)
      std::fclose(in);
  }

private:
  /// Whether the server can take `message`; when not, the editor has been
  /// answered.
  bool admit(llvm::StringRef message) {
    if (findTooDeep(message, options.maxJsonDepth)) {
      replyError(nullptr, kParseError,
                 llvm::formatv("Parse error: the message nests deeper than "
                               "{0} levels",
                               options.maxJsonDepth));
      return false;
    }
    llvm::Expected<json::Value> parsed = json::parse(message);
    if (!parsed) {
      replyError(nullptr, kParseError,
                 "Parse error: " + llvm::toString(parsed.takeError()));
      return false;
    }
    const json::Object *object = parsed->getAsObject();
    if (!object) {
      replyError(nullptr, kInvalidRequest,
                 "Invalid Request: a JSON-RPC message is an object");
      return false;
    }
    const json::Value *id = object->get("id");
    json::Value replyId = id ? *id : json::Value(nullptr);
    const json::Value *version = object->get("jsonrpc");
    if (version && version->getAsString() !=
                       std::optional<llvm::StringRef>(llvm::StringRef("2.0"))) {
      replyError(replyId, kInvalidRequest,
                 "Invalid Request: 'jsonrpc' must be \"2.0\"");
      return false;
    }
    const json::Value *method = object->get("method");
    if (method ? !method->getAsString() : !id) {
      replyError(replyId, kInvalidRequest,
                 "Invalid Request: a message names its 'method' (a string) "
                 "or answers a request by its 'id'");
      return false;
    }
    return !method ||
           admitDocument(*method->getAsString(), object->getObject("params"));
  }

  /// Whether the document a didOpen or didChange carries is shallow enough
  /// for the server's parser; when not, the editor gets a diagnostic.
  bool admitDocument(llvm::StringRef method, const json::Object *params) {
    if (!params || (method != "textDocument/didOpen" &&
                    method != "textDocument/didChange"))
      return true;
    const json::Object *document = params->getObject("textDocument");
    if (!document)
      return true;
    std::vector<llvm::StringRef> texts;
    if (std::optional<llvm::StringRef> text = document->getString("text"))
      texts.push_back(*text);
    if (const json::Array *changes = params->getArray("contentChanges"))
      for (const json::Value &change : *changes)
        if (const json::Object *object = change.getAsObject())
          if (std::optional<llvm::StringRef> text = object->getString("text"))
            texts.push_back(*text);
    for (llvm::StringRef text : texts) {
      std::optional<json::Object> where =
          findTooDeep(text, options.maxDocumentDepth);
      if (!where)
        continue;
      json::Object range{{"start", json::Object(*where)},
                         {"end", std::move(*where)}};
      json::Object diagnostic{
          {"range", std::move(range)},
          {"severity", 1},
          {"source", "dl-lsp-server"},
          {"message",
           llvm::formatv("the document nests regions, parentheses or "
                         "brackets deeper than {0} levels here; it is not "
                         "parsed",
                         options.maxDocumentDepth)
               .str()}};
      json::Object diagnostics{
          {"uri", document->get("uri") ? *document->get("uri") : nullptr},
          {"diagnostics", json::Array{std::move(diagnostic)}}};
      if (const json::Value *version = document->get("version"))
        diagnostics["version"] = *version;
      send(json::Object{{"jsonrpc", "2.0"},
                        {"method", "textDocument/publishDiagnostics"},
                        {"params", std::move(diagnostics)}});
      return false;
    }
    return true;
  }

  void forward(llvm::StringRef message) {
    std::string framed =
        options.delimitedInput
            ? message.str() + "\n// -----\n"
            : "Content-Length: " + std::to_string(message.size()) + "\r\n\r\n" +
                  message.str();
    writeAll(serverIn, framed);
  }

  void replyError(json::Value id, int64_t code, const llvm::Twine &message) {
    send(json::Object{
        {"jsonrpc", "2.0"},
        {"id", std::move(id)},
        {"error", json::Object{{"code", code}, {"message", message.str()}}}});
  }

  void send(json::Value message) {
    std::string body;
    llvm::raw_string_ostream os(body);
    os << llvm::formatv(options.prettyOutput ? "{0:2}\n" : "{0}", message);
    sendRaw(body);
  }

  void sendRaw(llvm::StringRef body) {
    std::lock_guard<std::mutex> lock(outputMutex);
    writeAll(editorOut, "Content-Length: " + std::to_string(body.size()) +
                            "\r\n\r\n" + body.str());
  }

  GuardOptions options;
  int editorOut, serverIn;
  std::mutex outputMutex;
};

struct ServerCall {
  llvm::function_ref<int()> server;
  int result = 1;
};

void *runServer(void *call) {
  auto *serverCall = static_cast<ServerCall *>(call);
  serverCall->result = serverCall->server();
  return nullptr;
}

/// Runs `server` on a thread with a large stack (on this one if none can
/// be made).
int runWithLargeStack(llvm::function_ref<int()> server) {
  ServerCall call{server};
  pthread_attr_t attributes;
  pthread_t thread;
  bool started =
      ::pthread_attr_init(&attributes) == 0 &&
      ::pthread_attr_setstacksize(&attributes, kServerStackSize) == 0 &&
      ::pthread_create(&thread, &attributes, runServer, &call) == 0;
  ::pthread_attr_destroy(&attributes);
  if (!started)
    return server();
  ::pthread_join(thread, nullptr);
  return call.result;
}

} // namespace

GuardOptions dlbridge::lsp::getGuardOptions(int argc, char **argv) {
  GuardOptions options;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = llvm::StringRef(argv[i]).ltrim('-');
    if (arg == "lit-test")
      options.delimitedInput = options.prettyOutput = true;
    else if (arg == "input-style=delimited")
      options.delimitedInput = true;
    else if (arg == "pretty")
      options.prettyOutput = true;
  }
  return options;
}

int dlbridge::lsp::runGuarded(const GuardOptions &options,
                              llvm::function_ref<int()> server) {
  int editorIn = ::dup(STDIN_FILENO), editorOut = ::dup(STDOUT_FILENO);
  int toServer[2], fromServer[2];
  if (editorIn < 0 || editorOut < 0 || ::pipe(toServer) != 0 ||
      ::pipe(fromServer) != 0 || ::dup2(toServer[0], STDIN_FILENO) < 0 ||
      ::dup2(fromServer[1], STDOUT_FILENO) < 0) {
    std::perror("dl-lsp-server: cannot set up its pipes");
    return 1;
  }
  ::close(toServer[0]);
  ::close(fromServer[1]);
  std::FILE *editorInput = ::fdopen(editorIn, "rb");
  // The editor may keep its end open after `exit`: the input thread is left
  // to end with the process, and the guard it uses lives as long.
  auto *guard = new Guard(options, editorOut, toServer[1]);
  std::thread output(
      [guard, &fromServer] { guard->forwardOutput(fromServer[0]); });
  std::thread([guard, editorInput] {
    guard->filterInput(editorInput);
  }).detach();
  int result = runWithLargeStack(server);
  // Back to the editor's stdout: the server's pipe closes and the output
  // thread copies what is left.
  llvm::outs().flush();
  ::dup2(editorOut, STDOUT_FILENO);
  output.join();
  return result;
}
