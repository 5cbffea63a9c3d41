package permit

import (
	"io/fs"
	"path"
	"strings"
)

// python -m MOD puts the folder it runs in first on sys.path, so a
// pytest.py, a pytest/ package or a sourceless pytest.pyc there is what
// python -m pytest runs, before any test is collected (red team 14b,
// finding 1). The same holds for what MOD imports afterwards: a local
// json.py or pluggy/ is taken instead of the standard library's or the
// tool's own. So python -m asks when the folder holds a module named like
// MOD, like a dependency the tool is known to import (pyToolDeps), or like
// a module of the standard library (pyStdlib). -P and -I leave the folder
// off sys.path. A .pth file there is not read (only site-packages' are),
// nor __pycache__/*.pyc without its source.

// pyToolDeps are the top-level modules the tools run with python -m
// import on their way to the project's code.
var pyToolDeps = map[string][]string{
	"pytest": {"_pytest", "pluggy", "iniconfig", "packaging", "py", "exceptiongroup", "tomli", "colorama", "pygments"},
	"mypy":   {"mypy_extensions", "typing_extensions", "mypyc", "tomli", "pathspec"},
	"black":  {"blackd", "click", "platformdirs", "pathspec", "packaging", "mypy_extensions", "tomli", "typing_extensions"},
	"pip":    {"setuptools", "wheel", "distutils"},
	"flake8": {"pyflakes", "pycodestyle", "mccabe"},
	"pylint": {"astroid", "isort", "mccabe", "tomlkit", "dill", "platformdirs"},
}

// pyModuleRun returns the module python -m runs and whether the folder it
// runs in is on sys.path (not under -P or -I); "" when it runs no module.
func pyModuleRun(args []Word) (mod string, cwdFirst bool) {
	cwdFirst = true
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return "", cwdFirst // a script, stdin, or the end of python's options
		}
		if strings.HasPrefix(a, "--") {
			continue // --version, --help: nothing runs
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'P', 'I':
				cwdFirst = false
			case 'm':
				if j+1 < len(a) {
					return a[j+1:], cwdFirst
				}
				if i+1 < len(args) {
					return args[i+1].Value, cwdFirst
				}
				return "", cwdFirst
			case 'c':
				return "", cwdFirst // inline code, judged as such
			case 'W', 'X', 'Q':
				if j+1 == len(a) {
					i++ // the option's value is the next word
				}
				j = len(a)
			}
		}
	}
	return "", cwdFirst
}

// pyShadowHits: python -m runs where a local module shadows the one it
// names or one it imports.
func pyShadowHits(v view, cwds cwdSet, env Env) []hit {
	if name, _ := interpreter(v.name); name != "python" || env.FS == nil {
		return nil
	}
	mod, cwdFirst := pyModuleRun(v.args)
	if mod == "" || !cwdFirst {
		return nil
	}
	top, _, _ := strings.Cut(mod, ".")
	if cwds.unknown {
		return []hit{{id: FloorCodeExec, detail: "python -m " + mod + " runs in a folder known only when it runs, whose modules come first on sys.path"}}
	}
	names := func(n string) bool { return n == top || pyShadowed(top, n) }
	for _, d := range cwds.dirs {
		noteNamed(env.FS, d, func(entry string) bool { return names(pyModuleName(entry)) })
		if local, ok := localPyModule(env, d, top, names); ok {
			return []hit{{id: FloorCodeExec, detail: "python -m " + mod + " puts " + d + " first on sys.path, and " + local +
				" there is imported instead of the installed module: code nobody reviewed runs before the tool"}}
		}
	}
	return nil
}

// pyShadowed reports a module name python -m top imports on its way.
func pyShadowed(top, name string) bool {
	for _, d := range pyToolDeps[top] {
		if d == name {
			return true
		}
	}
	return pyStdlib[name]
}

// pyModuleName is the module a folder entry would be imported as:
// x.py, x.pyc, x.so, x.cpython-312-x86_64-linux-gnu.so, x.pyd, or a
// folder x.
func pyModuleName(entry string) string {
	for _, ext := range []string{".py", ".pyc", ".pyd"} {
		if n, ok := strings.CutSuffix(entry, ext); ok {
			return n
		}
	}
	if n, ok := strings.CutSuffix(entry, ".so"); ok {
		n, _, _ = strings.Cut(n, ".")
		return n
	}
	if strings.Contains(entry, ".") {
		return "" // not importable by that name
	}
	return entry
}

// localPyModule finds an entry of dir imported as a module names accepts:
// a module file, or a package (a folder holding __init__ or __main__;
// any folder for top itself, which may be a namespace package's portion).
func localPyModule(env Env, dir, top string, names func(string) bool) (string, bool) {
	ents, err := env.FS.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range ents {
		n := e.Name()
		m := pyModuleName(n)
		if m == "" || !names(m) {
			continue
		}
		full := path.Join(dir, n)
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := env.FS.Lstat(env.realPath(full))
			isDir = err == nil && fi.IsDir()
		}
		switch {
		case !isDir && m != n:
			return n, true
		case isDir && m == n && (m == top || pyPackage(env, full)):
			return n + "/", true
		}
	}
	return "", false
}

// pyPackage reports a folder python imports as a regular package or runs
// with -m (__init__.py, __init__.pyc, __main__.py …).
func pyPackage(env Env, dir string) bool {
	ents, err := env.FS.ReadDir(env.realPath(dir))
	if err != nil {
		return false
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "__init__.") || strings.HasPrefix(e.Name(), "__main__.") {
			return true
		}
	}
	return false
}

// pyStdlib are the standard library's modules (sys.stdlib_module_names of
// Python 3.11, without test, which no tool imports).
var pyStdlib = setOf(
	"__future__", "_abc", "_aix_support", "_ast", "_asyncio", "_bisect", "_blake2", "_bootsubprocess", "_bz2",
	"_codecs", "_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr", "_codecs_tw",
	"_collections", "_collections_abc", "_compat_pickle", "_compression", "_contextvars", "_crypt", "_csv",
	"_ctypes", "_curses", "_curses_panel", "_datetime", "_dbm", "_decimal", "_elementtree", "_frozen_importlib",
	"_frozen_importlib_external", "_functools", "_gdbm", "_hashlib", "_heapq", "_imp", "_io", "_json", "_locale",
	"_lsprof", "_lzma", "_markupbase", "_md5", "_msi", "_multibytecodec", "_multiprocessing", "_opcode",
	"_operator", "_osx_support", "_overlapped", "_pickle", "_posixshmem", "_posixsubprocess", "_py_abc",
	"_pydecimal", "_pyio", "_queue", "_random", "_scproxy", "_sha1", "_sha256", "_sha3", "_sha512", "_signal",
	"_sitebuiltins", "_socket", "_sqlite3", "_sre", "_ssl", "_stat", "_statistics", "_string", "_strptime",
	"_struct", "_symtable", "_thread", "_threading_local", "_tkinter", "_tokenize", "_tracemalloc", "_typing",
	"_uuid", "_warnings", "_weakref", "_weakrefset", "_winapi", "_zoneinfo", "abc", "aifc", "argparse", "array",
	"ast", "asynchat", "asyncio", "asyncore", "atexit", "audioop", "base64", "bdb", "binascii", "bisect",
	"builtins", "bz2", "cProfile", "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd", "code", "codecs",
	"codeop", "collections", "colorsys", "compileall", "concurrent", "configparser", "contextlib", "contextvars",
	"copy", "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime", "dbm", "decimal",
	"difflib", "dis", "distutils", "doctest", "email", "encodings", "ensurepip", "enum", "errno", "faulthandler",
	"fcntl", "filecmp", "fileinput", "fnmatch", "fractions", "ftplib", "functools", "gc", "genericpath",
	"getopt", "getpass", "gettext", "glob", "graphlib", "grp", "gzip", "hashlib", "heapq", "hmac", "html",
	"http", "imaplib", "imghdr", "imp", "importlib", "inspect", "io", "ipaddress", "itertools", "json",
	"keyword", "lib2to3", "linecache", "locale", "logging", "lzma", "mailbox", "mailcap", "marshal", "math",
	"mimetypes", "mmap", "modulefinder", "msilib", "msvcrt", "multiprocessing", "netrc", "nis", "nntplib", "nt",
	"ntpath", "nturl2path", "numbers", "opcode", "operator", "optparse", "os", "ossaudiodev", "pathlib", "pdb",
	"pickle", "pickletools", "pipes", "pkgutil", "platform", "plistlib", "poplib", "posix", "posixpath",
	"pprint", "profile", "pstats", "pty", "pwd", "py_compile", "pyclbr", "pydoc", "pydoc_data", "pyexpat",
	"queue", "quopri", "random", "re", "readline", "reprlib", "resource", "rlcompleter", "runpy", "sched",
	"secrets", "select", "selectors", "shelve", "shlex", "shutil", "signal", "site", "smtpd", "smtplib",
	"sndhdr", "socket", "socketserver", "spwd", "sqlite3", "sre_compile", "sre_constants", "sre_parse", "ssl",
	"stat", "statistics", "string", "stringprep", "struct", "subprocess", "sunau", "symtable", "sys",
	"sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib", "tempfile", "termios", "textwrap", "threading",
	"time", "timeit", "tkinter", "token", "tokenize", "tomllib", "trace", "traceback", "tracemalloc", "tty",
	"turtle", "types", "typing", "unicodedata", "unittest", "urllib", "uu", "uuid", "venv", "warnings", "wave",
	"weakref", "webbrowser", "winreg", "winsound", "wsgiref", "xdrlib", "xml", "xmlrpc", "zipapp", "zipfile",
	"zipimport", "zlib", "zoneinfo",
)
