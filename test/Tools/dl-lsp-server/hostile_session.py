"""Prints an editor session, in the lit tests' message syntax, of messages
MLIR's language server alone dies of: JSON nested 50,000 deep, messages that
are not JSON-RPC objects, and an MLIR document nested 5,000 deep. Each is
followed by a request the server must still answer."""

import json
import sys


def message(obj: object) -> str:
    return json.dumps(obj) + "\n// -----\n"


def hover(request_id: int) -> str:
    return message({"jsonrpc": "2.0", "id": request_id, "method": "textDocument/hover",
                    "params": {"textDocument": {"uri": "test:///ok.mlir"},
                               "position": {"line": 0, "character": 2}}})


depth = 5000
deep_document = ("func.func @f() {\n" + "scf.execute_region {\n" * depth
                 + "scf.yield\n}\n" * depth + "return\n}\n")
session = [
    message({"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"processId": 1, "rootPath": "dlbridge", "capabilities": {}}}),
    message({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "test:///ok.mlir", "languageId": "mlir", "version": 1,
        "text": "func.func @ok() {\n  return\n}\n"}}}),
    "[" * 50000 + "]" * 50000 + "\n// -----\n",
    hover(1),
    "42\n// -----\n",
    "[]\n// -----\n",
    '"text"\n// -----\n',
    message({"jsonrpc": "1.0", "id": 7, "method": "shutdown"}),
    message({"jsonrpc": "2.0", "id": 8}),
    message({"jsonrpc": "2.0", "id": 9, "method": 12}),
    "{not json\n// -----\n",
    hover(2),
    message({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "test:///deep.mlir", "languageId": "mlir", "version": 1,
        "text": deep_document}}}),
    hover(3),
    message({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}),
    message({"jsonrpc": "2.0", "method": "exit"}),
]
sys.stdout.write("".join(session))
