# -*- Python -*- lit configuration for dlbridge's FileCheck tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "DLBRIDGE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dlbridge_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.dlbridge_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions([ToolSubst("dl-opt", unresolved="fatal")],
                                   tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
