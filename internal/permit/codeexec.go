package permit

import (
	"io/fs"
	"path"
	"strings"
)

// FloorCodeExec is an option or variable that names a program, script,
// plugin, configuration or makefile for a command to run.
const FloorCodeExec = "code-exec-option"

// codeVars are environment variables that name a program to run, code to
// load, or where a tool finds its configuration; setting one before a
// command runs that code instead of (or besides) the command.
var codeVars = map[string]bool{"LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true, "PATH": true,
	"BASH_ENV": true, "ENV": true, "PROMPT_COMMAND": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true,
	"IFS": true, "CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true, "AS": true, "FC": true,
	"CGO_CFLAGS": true, "CGO_CXXFLAGS": true, "CGO_LDFLAGS": true, "CGO_CPPFLAGS": true, "CGO_FFLAGS": true,
	"GOTOOLCHAIN": true, "GOROOT": true, "GOENV": true, "GOPROXY": true, "GONOSUMDB": true, "GONOSUMCHECK": true,
	"GOINSECURE": true, "GOSUMDB": true, "GOPRIVATE": true, "GONOPROXY": true, "GOWORK": true,
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "PAGER": true,
	"MANPAGER": true, "EDITOR": true, "VISUAL": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_GLOBAL": true,
	"GIT_CONFIG_SYSTEM": true, "GIT_CONFIG": true, "GIT_CONFIG_COUNT": true, "GIT_DIR": true, "GIT_WORK_TREE": true,
	"GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "GIT_PROXY_COMMAND": true, "NODE_OPTIONS": true,
	"NODE_PATH": true, "PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "PYTHONUSERBASE": true,
	"PYTHONINSPECT": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "CLASSPATH": true,
	"MAKEFLAGS": true, "MAKEFILES": true, "MFLAGS": true, "MAKE": true, "SHELL": true, "RUSTC": true,
	"RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true, "RUSTDOC": true, "RUSTFLAGS": true,
	"RUSTDOCFLAGS": true, "CARGO_ENCODED_RUSTFLAGS": true, "CARGO_HOME": true, "RUSTUP_HOME": true,
	"PYTEST_ADDOPTS": true, "PYTEST_PLUGINS": true, "BROWSER": true, "LESSOPEN": true, "LESSCLOSE": true,
	"XDG_CONFIG_HOME": true, "HOME": true, "CDPATH": true, "ZDOTDIR": true, "INPUTRC": true, "GCONV_PATH": true,
	"PIP_INDEX_URL": true, "PIP_EXTRA_INDEX_URL": true, "PIP_CONFIG_FILE": true, "UV_INDEX_URL": true,
	"NPM_CONFIG_USERCONFIG": true, "TMPDIR": false,
	// Red team 9b: GLOBIGNORE=x makes * match dot files (cat * printed .env).
	"GLOBIGNORE": true, "FIGNORE": true, "BASH_COMPAT": true,
	// Red team 10b: gpg's home (gpg.conf names the dirmngr and agent
	// programs), OpenSSL's configuration (loads a provider library), gcc's
	// and cc-rs's programs, flags and search paths, the resolver's search
	// domain (DNS queries carry data), trusted CAs, the backup suffix of
	// cp/mv -b, the options of tar, xz, gzip, zip and unzip, file's magic,
	// and the version managers' hooks.
	"GNUPGHOME": true, "GPG_AGENT_INFO": true, "OPENSSL_CONF": true, "OPENSSL_MODULES": true,
	"OPENSSL_ENGINES": true, "COMPILER_PATH": true, "GCC_EXEC_PREFIX": true, "DEPENDENCIES_OUTPUT": true,
	"SUNPRO_DEPENDENCIES": true, "LIBRARY_PATH": true, "CPATH": true, "C_INCLUDE_PATH": true,
	"CPLUS_INCLUDE_PATH": true, "OBJC_INCLUDE_PATH": true, "COLLECT_GCC": true, "COLLECT_GCC_OPTIONS": true,
	"COLLECT_LTO_WRAPPER": true, "LTO_PLUGIN": true, "PKG_CONFIG": true, "PKG_CONFIG_PATH": true,
	"PKG_CONFIG_LIBDIR": true, "PKG_CONFIG_SYSROOT_DIR": true, "CROSS_COMPILE": true, "CFLAGS": true,
	"CXXFLAGS": true, "CPPFLAGS": true, "LDFLAGS": true, "PROTOC": true, "PROTOC_INCLUDE": true,
	"LIBCLANG_PATH": true, "LLVM_CONFIG_PATH": true, "CLANG_PATH": true, "LOCALDOMAIN": true,
	"RES_OPTIONS": true, "HOSTALIASES": true, "RESOLV_HOST_CONF": true, "SSL_CERT_FILE": true,
	"SSL_CERT_DIR": true, "REQUESTS_CA_BUNDLE": true, "SIMPLE_BACKUP_SUFFIX": true, "VERSION_CONTROL": true,
	"TAR_OPTIONS": true, "XZ_OPT": true, "XZ_DEFAULTS": true, "GZIP": true, "BZIP": true, "BZIP2": true,
	"ZIPOPT": true, "UNZIP": true, "UNZIPOPT": true, "ZIP": true, "MAGIC": true, "LUA_INIT": true,
	"LUA_PATH": true, "LUA_CPATH": true, "PHPRC": true, "PHP_INI_SCAN_DIR": true, "KUBECONFIG": true,
	"WGETRC": true, "NETRC": true, "KRB5_CONFIG": true, "LOCPATH": true, "NLSPATH": true,
	"BASH_LOADABLES_PATH": true, "BASH_XTRACEFD": true, "QT_PLUGIN_PATH": true, "GTK_MODULES": true,
	"GTK_PATH": true, "GIO_MODULE_DIR": true, "TERMINFO": true, "TERMINFO_DIRS": true, "MANOPT": true,
	// Red team 12b (finding 11): cargo's own program, glibc's tunables,
	// where every tool writes and reads its temporary files, zone files.
	"CARGO": true, "GLIBC_TUNABLES": true, "TZDIR": true}

// codeVarPrefixes are families of such variables.
var codeVarPrefixes = []string{"DYLD_", "LD_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "NPM_CONFIG_", "YARN_",
	"CARGO_BUILD_", "CARGO_TARGET_", "CARGO_HOST_", "CARGO_REGISTRIES_", "CARGO_SOURCE_", "CARGO_ALIAS_",
	"CARGO_REGISTRY_", "PIP_", "BASH_FUNC_", "TOX_", "POETRY_REPOSITORIES_",
	// Red team 10b: gpg's, OpenSSL's, cc-rs's (CC_x86_64…, HOST_CC,
	// TARGET_CC), cmake's, bindgen's; the version managers (pyenv exec
	// sources PYENV_HOOK_PATH/exec/*.bash); cloud and container tools'
	// configurations (credential_process, exec plugins, credHelpers).
	"GNUPG", "GPG_", "OPENSSL_", "CC_", "CXX_", "CFLAGS_", "CXXFLAGS_", "LDFLAGS_", "AR_", "HOST_", "TARGET_",
	"CMAKE", "BINDGEN_", "PYENV", "RBENV", "NODENV", "GOENV", "PLENV", "JENV", "ASDF_", "MISE_", "RTX_",
	"VOLTA_", "NVM_", "FNM_", "SDKMAN_", "DIRENV_", "XDG_", "DOTNET_", "CORECLR_", "AWS_", "DOCKER_",
	"TF_", "HELM_", "ANSIBLE_", "BAZEL", "CONAN_", "VCPKG_", "CLOUDSDK_", "AZURE_", "GOOGLE_APPLICATION_"}

// toolVarPrefixes are the namespaces of tools' own variables. A tool reads
// its variables for what it runs, loads and writes (GIT_TRACE=FILE writes
// anywhere, PYTHONWARNINGS imports a module, NODE_V8_COVERAGE picks a
// folder), and new ones come with every release; so within these
// namespaces only the variables known to be harmless (safeEnv) pass.
var toolVarPrefixes = []string{"GIT_", "NODE_", "NPM_", "PYTHON", "PIP_", "PYTEST_", "MYPY", "RUFF_", "UV_",
	"POETRY_", "TOX_", "CONDA_", "CARGO_", "RUSTC", "RUSTDOC", "RUSTUP_", "GO", "CGO_", "MAKE", "GNUMAKE", "LD_",
	"DYLD_", "JAVA", "JDK_", "MAVEN_", "GRADLE_", "YARN_", "PNPM_", "BUN_", "DENO_", "PERL", "RUBY", "GEM_",
	"BUNDLE_", "RIPGREP_", "JQ_", "LESS", "GREP_", "SSH_", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
	"FTP_PROXY", "CURL_", "WGET", "ESLINT_", "PRETTIER_", "JEST_", "VITEST_", "TS_", "TSC_",
	// Red team 12b (finding 11): black unpickles its cache from
	// BLACK_CACHE_DIR; corepack's registry; the Python linters' and
	// coverage's configuration files.
	"BLACK_", "COREPACK_", "FLAKE8", "PYLINT", "ISORT_", "COVERAGE_", "GCCGO", "RUSTFMT"}

// isCodeVar reports a variable that makes a command run other code, or
// run it, read or write somewhere else.
func isCodeVar(name string) bool {
	if codeVars[name] {
		return true
	}
	up := strings.ToUpper(name)
	for _, p := range codeVarPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	if safeEnv[up] {
		return false
	}
	for _, p := range toolVarPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return false
}

// goExecFlags are go command flags whose value is a program, or code, the
// go command runs.
var goExecFlags = map[string]bool{"exec": true, "toolexec": true, "vettool": true, "overlay": true,
	"compiler": true, "gccgoflags": true, "modfile": true}

// goCodeFlag reports a go flag (-x, --x, -x=v) that runs other code
// (-gcflags, -ldflags and -asmflags are goToolHits').
func goCodeFlag(args []string, i int) (string, bool) {
	a := args[i]
	if !strings.HasPrefix(a, "-") {
		return "", false
	}
	name, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if goExecFlags[name] {
		return a, true
	}
	if name == "mod" {
		if !eq && i+1 < len(args) {
			val = args[i+1]
		}
		if val == "mod" { // resolves any import the agent wrote: downloads it, and the path can carry data
			return "-mod=mod", true
		}
	}
	return "", false
}

// goProxyQuery returns the module path of a go list or go mod download
// that asks the module proxy about it: a path@version, or any module path
// with go list -m -versions, -u or -retracted (which look up versions).
func goProxyQuery(sub string, args []string) (string, bool) {
	lookup := false
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case "versions", "u", "retracted":
			lookup = sub == "list"
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if strings.Contains(a, "@") || lookup && a != "all" && a != "." {
			return a, true
		}
	}
	return "", false
}

// goFlagsRun reports a GOFLAGS value that holds such a flag, or tool
// flags that run code or write a file (a write hidden in a variable is
// not looked up).
func goFlagsRun(v string) bool {
	f := quotedSplit(v)
	for i := range f {
		if _, ok := goCodeFlag(f, i); ok {
			return true
		}
	}
	for _, t := range goToolFlags(f) {
		if _, w := goToolWrite(t); w || goToolCodeFlag(t) {
			return true
		}
	}
	return false
}

// makeVars are make variables whose override runs another program.
var makeVars = map[string]bool{"SHELL": true, ".SHELLFLAGS": true, "MAKEFLAGS": true, "MFLAGS": true,
	"MAKEFILES": true, "MAKE": true, ".DEFAULT_GOAL": false}

// jsCodeOpts are options of JavaScript test runners, linters and
// formatters that load a module, plugin or configuration (code) to run.
var jsCodeOpts = []string{"--config", "-c", "--globalSetup", "--globalTeardown", "--setupFiles",
	"--setupFilesAfterEnv", "--testRunner", "--runner", "--transform", "--resolver", "--reporters",
	"--reporter", "--testEnvironment", "--env", "--environment", "--snapshotResolver", "--watchPlugins",
	"--preset", "--rulesdir", "--plugin", "--resolve-plugins-relative-to", "--parser", "--require", "-r",
	"--loader", "--import", "--experimental-loader", "--node-options", "--script-shell", "--userconfig",
	"--globalconfig", "--dir", "--setup", "--globalSetupFile", "--config-loader", "--configLoader",
	// red team 16b: pnpm's hooks files, yarn's rc file (which names the
	// yarn that runs), the scripts of a workspace root above the folder
	"--pnpmfile", "--global-pnpmfile", "--use-yarnrc", "--workspace-root",
	// red team 22a, finding 10: pnpm test installs (and runs the packages'
	// install scripts) before the run
	"--verify-deps-before-run"}

// jsRunners are the commands those options are looked for in.
var jsRunners = map[string]bool{"npm": true, "npx": true, "pnpm": true, "pnpx": true, "yarn": true, "bun": true,
	"bunx": true, "jest": true, "vitest": true, "eslint": true, "prettier": true, "mocha": true, "ava": true,
	"playwright": true, "tsc": true, "node": false}

// jsToolCodeOpts are the options of one JavaScript tool that load a
// module (jest's JSON options that map modules, its sequencer and
// filter), or download and run packages (eslint --init runs npm init
// @eslint/config), or make the package manager run another program.
var jsToolCodeOpts = map[string][]string{
	"jest": {"--moduleNameMapper", "--haste", "--testEnvironmentOptions", "--modulePaths", "--moduleDirectories",
		"--testSequencer", "--filter", "--testResultsProcessor", "--prettierPath", "--dependencyExtractor",
		"--snapshotSerializers", "--testRunner", "--runner", "--moduleLoader", "--inspect", "--inspect-brk"},
	"eslint": {"--init", "--inspect-config"},
	// A debugger or UI server listening lets whoever connects run code
	// as the user (red team 22a, finding 5: --inspect-brk=0.0.0.0:9229).
	"vitest": {"--root", "--workspace", "--dir", "--globalSetup", "--setupFiles", "--inspect", "--inspectBrk", "--inspect-brk",
		"--inspect-wait", "--api", "--ui", "--browser"},
	"npm":  {"--shell", "--onload-script", "--git", "--editor", "--browser", "--viewer", "--init-module"},
	"pnpm": {"--shell", "--onload-script", "--git", "--editor", "--browser", "--viewer"},
	"yarn": {"--shell", "--onload-script"},
}

// jsOptName is the name of a JavaScript tool's long option as its parser
// reads it: yargs (jest, mocha) and cac (vitest) take --global-setup for
// --globalSetup, and tsc takes any letter case, so a name is compared
// with the tables' in lower case without its dashes and underscores
// (red team 13b, finding 7: jest --global-setup ./x.js ran x.js). Wider
// than any one parser: a spelling no tool reads asks too.
func jsOptName(a string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
	return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
}

// jsOptIn is optIn for a JavaScript tool: long options by jsOptName.
func jsOptIn(args []string, i int, opts []string) (string, bool) {
	a := args[i]
	if !strings.HasPrefix(a, "--") || a == "--" {
		return optIn(args, i, opts)
	}
	n := jsOptName(a)
	for _, o := range opts {
		if strings.HasPrefix(o, "--") && jsOptName(o) == n {
			return a, true
		}
	}
	return "", false
}

// jsCanon writes the long options of a JavaScript tool's arguments that
// name one of opts as opts spells it (--output-file=F is --outputFile=F).
func jsCanon(args []Word, opts []string) []Word {
	out := make([]Word, len(args))
	copy(out, args)
	for i, a := range out {
		if a.Value == "--" {
			break
		}
		if !strings.HasPrefix(a.Value, "--") || a.Dynamic {
			continue
		}
		_, val, eq := strings.Cut(a.Value, "=")
		for _, o := range opts {
			o = strings.TrimSuffix(o, "?")
			if strings.HasPrefix(o, "--") && jsOptName(o) == jsOptName(a.Value) {
				out[i].Value = o
				if eq {
					out[i].Value += "=" + val
				}
				break
			}
		}
	}
	return out
}

// vitestSafeDotted are the dotted options of vitest (cac builds its
// configuration from any --a.b.c) known to run nothing and write nothing.
var vitestSafeDotted = setOf("coverage.enabled", "coverage.include", "coverage.exclude", "coverage.all", "coverage.clean",
	"coverage.cleanonrerun", "coverage.skipfull", "coverage.reportonfailure", "coverage.thresholds.lines",
	"coverage.thresholds.functions", "coverage.thresholds.branches", "coverage.thresholds.statements",
	"coverage.thresholds.100", "coverage.thresholds.perfile", "coverage.thresholds.autoupdate", "browser.enabled", "browser.headless",
	"browser.name", "typecheck.enabled", "typecheck.only", "typecheck.ignoresourceerrors", "sequence.shuffle",
	"sequence.concurrent", "sequence.seed")

// vitestBuiltinPools are the pools vitest ships; any other --pool is a module it loads.
var vitestBuiltinPools = setOf("threads", "forks", "vmthreads", "vmforks", "typescript", "browser")

// vitestOption reports an option of vitest that runs code (the workers'
// node options, a coverage provider or pool module, a type checker) or
// whose dotted path vitest takes into its configuration and the policy
// does not know as harmless (--poolOptions.forks.execArgv,
// --coverage.customProviderModule, --typecheck.checker, --browser.provider;
// red team 13b, finding 8). Its writes (--outputFile, --json=FILE,
// --coverage.reportsDirectory …) are judged as writes (outputOpts).
func vitestOption(args []string, i int) (string, bool) {
	a := args[i]
	if !strings.HasPrefix(a, "--") || a == "--" {
		return "", false
	}
	n := jsOptName(a)
	if strings.HasPrefix(a, "--no-") {
		n = jsOptName("--" + a[5:]) // --no-coverage.enabled negates a key
	}
	switch {
	case n == "execargv":
		return "passes options to the node of every worker (--require loads a module)", true
	case n == "pool":
		val, ok := optArg(args, i, "--pool")
		if !ok || !vitestBuiltinPools[strings.ToLower(val)] {
			return "names a pool that is not one vitest ships: a module it loads", true
		}
	case n == "coverage.provider":
		val, ok := optArg(args, i, strings.SplitN(a, "=", 2)[0])
		if !ok || val != "v8" && val != "istanbul" {
			return "names a coverage provider that is not one vitest ships", true
		}
	case strings.Contains(n, "."):
		if vitestSafeDotted[n] || vitestWriteDotted[n] {
			return "", false
		}
		return "sets a key of vitest's configuration the policy does not know as harmless (keys can name modules, programs and node options to run)", true
	}
	return "", false
}

// vitestWriteDotted are vitest's dotted options that name a folder or
// file it writes (judged as writes).
var vitestWriteDotted = setOf("coverage.reportsdirectory", "cache.dir", "outputfile.json", "outputfile.junit", "outputfile.html",
	"outputfile.blob", "outputfile.tap", "outputfile.tap-flat")

// eslintFormatters are eslint's built-in formatters (8 and 9); any other
// -f/--format value is a module eslint loads and runs: a path, or a
// package eslint-formatter-NAME (red team 11b, finding 10).
var eslintFormatters = setOf("stylish", "json", "json-with-metadata", "html", "checkstyle", "compact",
	"jslint-xml", "junit", "tap", "unix", "visualstudio")

// jsTool returns the tool a JavaScript command line runs (npx jest is
// jest; pnpm exec jest and yarn jest too) and its arguments.
func jsTool(name string, args []string) (string, []string) {
	switch name {
	case "npx", "pnpx", "bunx":
	case "pnpm", "yarn", "bun":
		if len(args) > 1 && (args[0] == "exec" || args[0] == "dlx" || args[0] == "x") {
			args = args[1:]
		} else if len(args) > 0 && name == "yarn" && !strings.HasPrefix(args[0], "-") && !yarnCommands[args[0]] {
			break // yarn TOOL runs the package's binary
		} else {
			return name, args
		}
	default:
		return name, args
	}
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			return path.Base(a), args[i+1:]
		}
	}
	return name, nil
}

// jsCheckFlag reports prettier's -c among its own arguments (from start):
// --check there, not a configuration (red team 14b: npx prettier -c .).
func jsCheckFlag(tool string, args []string, i, start int) bool {
	return tool == "prettier" && i >= start && args[i] == "-c"
}

// yarnCommands are yarn's own commands (yarn jest runs a binary instead).
var yarnCommands = setOf("add", "install", "remove", "run", "test", "build", "lint", "init", "info", "why", "upgrade",
	"list", "link", "unlink", "publish", "pack", "config", "cache", "global", "workspace", "workspaces", "dlx", "exec",
	"bin", "node", "set", "plugin", "version", "audit", "outdated", "dedupe", "constraints", "explain", "npm", "patch")

// lintConfigOpts name a linter's configuration on the command line: it
// can load plugins (golangci-lint's Go plugins, flake8's local-plugins) or
// move its cache and reports (ruff's inline --config 'cache-dir = …').
// black's include = '.*' in a --config file makes it print (--diff) and
// rewrite every file, .env among them (red team 18a, finding 3).
var lintConfigOpts = map[string][]string{"golangci-lint": {"-c", "--config"},
	"flake8": {"--config", "--append-config"}, "ruff": {"--config"}, "black": {"--config"}}

// lintTool is the linter of lintConfigOpts a part runs, by name or as
// python -m.
func lintTool(v view) string {
	if lintConfigOpts[v.name] != nil {
		return v.name
	}
	if t := pyTool(v.args); lintConfigOpts[t] != nil {
		return t
	}
	return ""
}

// pytestCodeOpts load plugins, configuration or a debugger class.
var pytestCodeOpts = []string{"-c", "--config-file", "-o", "--override-ini", "--pdbcls", "--rootdir-plugin", "--cov-config"}

// safeGitConfig are git -c keys that only change how git shows things.
var safeGitConfig = []string{"user.", "color.", "advice.", "log.", "format.pretty", "core.quotepath",
	"init.defaultbranch", "commit.gpgsign", "tag.gpgsign", "diff.noprefix", "diff.renames", "diff.algorithm",
	"merge.conflictstyle", "column.", "status.", "pull.rebase", "pull.ff", "push.default", "core.autocrlf",
	"core.safecrlf", "core.abbrev", "gc.auto", "maintenance.auto", "fetch.prune", "rebase.autosquash",
	"safe.bareRepository", "protocol.version", "http.version", "credential.interactive", "blame.",
	// not grep.patternType or grep.extendedRegexp, which change the
	// dialect a pattern is judged in (red team 11b, finding 6), nor
	// grep.fallbackToNoIndex, which searches every file outside a repository
	"grep.lineNumber", "grep.column", "grep.fullName", "grep.threads"}

func safeGitKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range safeGitConfig {
		s = strings.ToLower(s)
		if k == s || strings.HasSuffix(s, ".") && strings.HasPrefix(k, s) {
			return true
		}
	}
	return false
}

// execHits finds the options and variables of one part that make it run
// code it does not show.
func execHits(c Command, v view) []hit {
	var hs []hit
	add := func(detail string) { hs = append(hs, hit{id: FloorCodeExec, detail: detail}) }
	assigns := append([]Word{}, c.Assigns...)
	for _, a := range c.Args { // env NAME=value cmd, and the like
		if isAssignment(a.Raw) {
			assigns = append(assigns, a)
		}
	}
	if v.name == "export" || v.name == "declare" || v.name == "typeset" || v.name == "local" || v.name == "readonly" {
		assigns = append(assigns, v.args...)
		hs = append(hs, namerefHits(v)...)
	}
	for _, n := range assignedNames(v) { // printf -v HOME, read CDPATH, mapfile PATH
		assigns = append(assigns, Word{Raw: n + "=…", Value: n + "=…", Dynamic: true})
	}
	for _, a := range assigns {
		name, val, ok := strings.Cut(a.Value, "=")
		name = strings.TrimSuffix(name, "+")
		if !ok {
			continue
		}
		switch {
		case name == "GOFLAGS" && goFlagsRun(val):
			add("GOFLAGS=" + val + " makes go run another program")
		case isCodeVar(name):
			add(name + "= names a program, code or configuration the command loads")
		}
	}
	args := make([]string, len(v.args))
	for i, a := range v.args {
		args[i] = a.Value
	}
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch {
	case v.name == "go":
		for i := range args {
			if f, ok := goCodeFlag(args, i); ok {
				add("go " + f + " runs another program")
			}
		}
		for _, f := range goToolHits(args) {
			add("go " + f + " names a program the tool runs, or code it links in from elsewhere")
		}
		if sub == "doc" {
			for _, a := range args[1:] {
				if n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); n == "http" && strings.HasPrefix(a, "-") {
					add("go doc -http downloads and runs pkgsite's documentation server (go run golang.org/x/pkgsite/…@latest)")
				}
			}
		}
		if sub == "env" {
			for _, a := range args[1:] {
				if a == "-w" || a == "-u" {
					add("go env " + a + " changes the go command's settings for every later run")
				}
			}
		}
		if sub == "list" || sub == "mod" && len(args) > 1 && args[1] == "download" {
			if a, ok := goProxyQuery(sub, args[1:]); ok {
				hs = append(hs, hit{id: FloorURLData, detail: "go " + sub + " " + a + " asks the module proxy for a path the command names, which can carry data"})
			}
		}
		if sub == "run" || sub == "install" || sub == "get" || sub == "tool" {
			for _, a := range args[1:] {
				if !strings.HasPrefix(a, "-") && strings.Contains(a, "@") {
					add("go " + sub + " " + a + " downloads and runs a module nobody has read")
					break
				}
			}
		}
	case v.name == "make" || v.name == "gmake" || v.name == "bmake":
		hs = append(hs, makeHits(v.args)...)
	case v.name == "cargo":
		for _, a := range args {
			if a == "--config" || strings.HasPrefix(a, "--config=") || strings.HasPrefix(a, "-Z") {
				add("cargo " + a + " can name a runner, wrapper or linker to run")
			}
		}
		code, _ := rustcPassHits(cargoPassed(v.args))
		for _, c := range code {
			add("cargo … -- " + c)
		}
	case jsRunners[v.name]:
		tool, targs := jsTool(v.name, args)
		for i := range args {
			if o, ok := jsOptIn(args, i, jsCodeOpts); ok && !jsCheckFlag(tool, args, i, len(args)-len(targs)) {
				add(v.name + " " + o + " loads a module, plugin or configuration that runs code")
			}
		}
		for i, a := range targs {
			if a == "--" {
				break
			}
			if o, ok := jsOptIn(targs, i, jsToolCodeOpts[tool]); ok {
				add(tool + " " + o + " loads a module, or downloads and runs packages")
			}
			if tool == "vitest" {
				if why, ok := vitestOption(targs, i); ok {
					add("vitest " + a + " " + why)
				}
			}
			if tool == "eslint" {
				for _, o := range []string{"-f", "--format"} {
					if val, ok := optArg(targs, i, o); ok && !eslintFormatters[val] {
						add("eslint " + o + " " + val + " loads a formatter module, which runs (only the built-in formatters are known)")
					}
				}
			}
			if (tool == "npm" || tool == "pnpm" || tool == "yarn") && strings.HasPrefix(a, "--config.") {
				add(tool + " " + a + " sets a configuration key (node-options, script-shell …) for the scripts it runs")
			}
			if full, ok := npmAbbrev(tool, a); ok {
				why := " is " + full + " abbreviated (npm takes any unambiguous prefix): it names a program, configuration or registry"
				if strings.HasPrefix(a, full) {
					why = " sends the project's requests, with what their URLs carry, to another registry"
				}
				add(tool + " " + a + why)
			}
		}
	case v.name == "pytest" || v.name == "py.test" || isPyModule(v.args, "pytest"):
		hs = append(hs, argFileHits("pytest", args)...)
		for i, a := range args {
			if o, ok := optIn(args, i, pytestCodeOpts); ok {
				add("pytest " + o + " loads configuration or a class that runs code")
			}
			if o, ok := optIn(args, i, []string{"--pyargs", "--rsyncdir", "--ds"}); ok {
				add("pytest " + o + " collects or imports a package by name, or sends the project elsewhere, not the project's own tests")
			}
			if val, ok := optArg(args, i, "--tx"); ok && !localXdist(val) {
				add("pytest --tx " + val + " starts its workers with another interpreter or on another machine")
			}
			for _, o := range []string{"-W", "--pythonwarnings"} {
				if val, ok := optArg(args, i, o); ok && warningImports(val) {
					add("pytest " + o + " " + val + " imports the module of its warning category")
				}
			}
			if o, ok := optIn(args, i, []string{"--pastebin"}); ok {
				hs = append(hs, hit{id: FloorURLData, detail: "pytest " + o + " uploads the test session's output to a public paste service"})
			}
			val := ""
			switch {
			case a == "-p" && i+1 < len(args):
				val = args[i+1]
			case strings.HasPrefix(a, "-p") && len(a) > 2 && !strings.HasPrefix(a, "--"):
				val = a[2:]
			default:
				continue
			}
			if !strings.HasPrefix(val, "no:") {
				add("pytest -p " + val + " loads a plugin")
			}
		}
	case v.name == "mypy" || isPyModule(v.args, "mypy"):
		hs = append(hs, argFileHits("mypy", args)...)
		for i := range args {
			if o, ok := optIn(args, i, []string{"--python-executable", "--install-types", "--config-file"}); ok {
				add("mypy " + o + " runs another program, installs packages or loads a configuration (whose plugins are code)")
			}
		}
	case lintConfigOpts[lintTool(v)] != nil:
		tool := lintTool(v)
		if tool == "golangci-lint" && sub == "custom" {
			add("golangci-lint custom builds a golangci-lint with the plugin modules .custom-gcl.yml names, fetched from the network")
		}
		for i := range args {
			if o, ok := optIn(args, i, lintConfigOpts[tool]); ok {
				add(tool + " " + o + " loads a configuration the project does not hold where the tool looks, which can load plugins (code), send its files elsewhere or widen what it reads")
			}
		}
	case v.name == "git":
		hs = append(hs, gitExecHits(v.args)...)
		g := parseGit(v.args)
		hs = append(hs, gitConfigWrite(g)...)
		if gitShowsDiffs[g.sub] && hasLong(optionWords(g.args), "--ext-diff") {
			add("git " + g.sub + " --ext-diff runs the diff program the repository's configuration or attributes name")
		}
	}
	return hs
}

// namerefHits: declare -n REF=NAME (typeset -n, local -n) makes REF
// another name for NAME: assigning or exporting REF sets NAME, so a
// reference to a variable that names code, or to one known only when it
// runs, is judged as that variable's assignment (red team 13b, finding
// 14: declare -n r=GOFLAGS; export r=-toolexec=./x.sh; GOFLAGS is judged
// by its value, which an assignment through r hides). A reference
// declared without its target takes the first value assigned to it as
// the name.
func namerefHits(v view) []hit {
	ref := false
	for _, a := range v.args {
		o := a.Value
		if o == "--" {
			break
		}
		if len(o) > 1 && o[0] == '-' && strings.ContainsRune(o, 'n') && !a.Dynamic {
			ref = true
		}
	}
	if !ref || v.name == "export" {
		return nil
	}
	for _, a := range v.args {
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			continue
		}
		name, target, eq := strings.Cut(a.Value, "=")
		switch {
		case !eq:
			return []hit{{id: FloorCodeExec, detail: v.name + " -n " + name + ": the first value assigned to " + name + " names the variable it stands for, which could be LD_PRELOAD, PATH or another that names code a program loads"}}
		case a.Dynamic || strings.ContainsAny(target, "$`[") || isCodeVar(target) || target == "GOFLAGS":
			return []hit{{id: FloorCodeExec, detail: v.name + " -n " + a.Value + ": " + name + " stands for " + target + ", and assigning " + name + " sets that variable, which can name a program, code or configuration the commands load"}}
		}
	}
	return nil
}

// gitShowsDiffs are git's commands that run an external diff program only
// when told to (git diff runs the configured one unasked, as the human set it).
var gitShowsDiffs = setOf("log", "show", "format-patch", "whatchanged", "stash", "diff-files", "diff-index", "diff-tree", "range-diff")

// gitConfigReads are git config's options that only read.
var gitConfigReads = map[string]bool{"--get": true, "--get-all": true, "--get-regexp": true, "--get-urlmatch": true,
	"--list": true, "-l": true, "--show-origin": true, "--show-scope": true, "--name-only": true, "--null": true,
	"-z": true, "--type": true, "--bool": true, "--int": true, "--path": true, "--default": true, "--includes": true,
	"--no-includes": true, "get": true, "list": true, "--local": true, "--global": true, "--system": true, "--worktree": true}

// gitConfigWrite: git config setting a key other than the display ones
// writes .git/config (or ~/.gitconfig), which decides what git runs.
func gitConfigWrite(g gitInfo) []hit {
	if g.sub != "config" {
		return nil
	}
	var ops []string
	write := false
	for _, a := range g.args {
		v := a.Value
		switch {
		case strings.HasPrefix(v, "-") || v == "get" || v == "list":
			name, _, _ := strings.Cut(v, "=")
			if !gitConfigReads[name] && !gitConfigReads[v] {
				write = true // --add, --unset, --replace-all, --edit, --rename-section, --file...
			}
		default:
			ops = append(ops, v)
		}
	}
	if len(ops) > 0 && (ops[0] == "set" || ops[0] == "unset" || ops[0] == "edit" || ops[0] == "rename-section" || ops[0] == "remove-section") {
		write, ops = true, ops[1:]
	}
	if len(ops) >= 2 {
		write = true
	}
	if !write || len(ops) > 0 && safeGitKey(ops[0]) && len(g.args) == len(ops) {
		return nil
	}
	key := ""
	if len(ops) > 0 {
		key = ops[0]
	}
	return []hit{{id: FloorProtectedFile, detail: "git config " + key + " writes git's configuration, which decides what git runs (core.fsmonitor, core.hooksPath, alias.x=!cmd...)"}}
}

// argFileHits: mypy and pytest (8.2 and later) read more arguments from
// FILE for every argument @FILE (argparse's fromfile_prefix_chars), before
// any --: options the command line does not show, --python-executable or
// --junitxml=.git/config among them (red team 11b, finding 9).
func argFileHits(tool string, args []string) []hit {
	for _, a := range args {
		if strings.HasPrefix(a, "@") && len(a) > 1 {
			return []hit{{id: FloorCodeExec, detail: tool + " " + a + " reads more options from a file, which can name a program to run or a file to write"}}
		}
	}
	return nil
}

// isPyModule reports python -m MOD.
func isPyModule(args []Word, mod string) bool {
	for i, a := range args {
		if a.Value == "-m" && i+1 < len(args) {
			return args[i+1].Value == mod
		}
		if a.Value == "-m"+mod {
			return true
		}
	}
	return false
}

// optArg returns the value args[i] gives option o: o VALUE, o=VALUE, and
// -oVALUE for a one-letter one.
func optArg(args []string, i int, o string) (string, bool) {
	a := args[i]
	switch {
	case a == o && i+1 < len(args):
		return args[i+1], true
	case strings.HasPrefix(a, o+"="):
		return a[len(o)+1:], true
	case len(o) == 2 && strings.HasPrefix(a, o) && len(a) > 2:
		return a[2:], true
	}
	return "", false
}

// localXdist reports an xdist gateway that starts local workers with the
// default interpreter: popen, or N*popen.
func localXdist(spec string) bool {
	_, g, ok := strings.Cut(spec, "*")
	if !ok {
		g = spec
	}
	return g == "popen"
}

// warningImports reports a warnings filter (action:message:category:
// module:lineno) whose category is a dotted name outside the standard
// ones: Python imports its module to find the class.
func warningImports(filter string) bool {
	f := strings.Split(filter, ":")
	if len(f) < 3 {
		return false
	}
	cat := strings.TrimSpace(f[2])
	if !strings.Contains(cat, ".") {
		return false
	}
	for _, safe := range []string{"builtins.", "warnings.", "pytest.", "_pytest."} {
		if strings.HasPrefix(cat, safe) {
			return false
		}
	}
	return true
}

// optIn reports args[i] is one of opts (as -o, -o=v, -ov for short ones, --opt=v).
func optIn(args []string, i int, opts []string) (string, bool) {
	a := args[i]
	for _, o := range opts {
		switch {
		case a == o, strings.HasPrefix(a, o+"="):
			return a, true
		case !strings.HasPrefix(o, "--") && len(o) == 2 && strings.HasPrefix(a, o) && !strings.HasPrefix(a, "--"):
			return a, true
		}
	}
	return "", false
}

// makeHits: make options that read another makefile or evaluate text, and
// variable definitions that run a command (x!=cmd), name a program or hold
// make or shell syntax (x:=$(shell cmd), with any operator).
func makeHits(args []Word) []hit {
	var hs []hit
	add := func(d string) { hs = append(hs, hit{id: FloorCodeExec, detail: d}) }
	for _, m := range parseMake(args) {
		a := m.words[0].Value
		switch m.kind {
		case makeOption:
			if strings.HasPrefix(a, "--") {
				name, _, _ := strings.Cut(a, "=")
				switch name {
				case "--eval", "--file", "--makefile", "--include-dir":
					add("make " + a + " runs a makefile or text the command line does not show")
				}
				continue
			}
			for _, ch := range a[1:] {
				if strings.ContainsRune("EfI", ch) {
					add("make " + a + " runs a makefile or text the command line does not show")
					break
				}
				if strings.ContainsRune(makeShortValue+makeShortOptional, ch) {
					break // the rest is this option's value
				}
			}
		case makeAssign:
			w := m.words[0]
			name, op, val, _ := makeAssignOp(a)
			switch {
			case op == "!=":
				add("make " + a + " runs its value as a shell command before any goal")
			case makeVars[name] || isCodeVar(name) || w.Dynamic || strings.ContainsAny(name+val, ";|&$`<>(){}\n\\'\""):
				add("make " + a + " overrides a variable the makefile's recipes run, or holds make or shell syntax")
			}
		}
	}
	return hs
}

// gitExecHits: git's global options that run code or another repository's
// configuration.
func gitExecHits(args []Word) []hit {
	var hs []hit
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if !strings.HasPrefix(a, "-") {
			break
		}
		name, val, eq := strings.Cut(a, "=")
		switch name {
		case "-c":
			if i+1 < len(args) {
				i++
				k, _, _ := strings.Cut(args[i].Value, "=")
				if !safeGitKey(k) {
					hs = append(hs, hit{id: FloorCodeExec, detail: "git -c " + args[i].Value + " changes a setting that can run code"})
				}
			}
		case "--config-env", "--exec-path":
			hs = append(hs, hit{id: FloorCodeExec, detail: "git " + a + " can make git run another program"})
			if !eq && i+1 < len(args) {
				i++
			}
		case "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix":
			if !eq && i+1 < len(args) {
				i++
			}
		}
		_ = val
	}
	return hs
}

// execOptionHits: options whose value is a command the program runs
// (rg --pre, sort --compress-program, tar --to-command, git grep -O...).
func execOptionHits(v view) []hit {
	var found []nested
	if opts, ok := cmdOptions[v.name]; ok {
		found = optionCommands(v.args, opts)
	}
	if v.name == "git" {
		g := parseGit(v.args)
		found = append(found, optionCommands(g.args, gitCmdOptions[g.sub])...)
	}
	if len(found) == 0 {
		return nil
	}
	return []hit{{id: FloorCodeExec, detail: v.name + " runs " + found[0].text + " given as an option"}}
}

// shellStateHits: commands that change what later command names mean
// (alias, enable, hash -p, shopt -s expand_aliases or dotglob, trap).
func shellStateHits(v view) []hit {
	add := func(d string) []hit { return []hit{{id: FloorDynamicCommand, detail: d}} }
	switch v.name {
	case "alias":
		for _, a := range v.args {
			if strings.Contains(a.Value, "=") {
				return add("alias " + a.Value + " changes what a command name runs")
			}
		}
	case "enable":
		if len(v.args) > 0 {
			return add("enable changes which builtins run")
		}
	case "hash":
		for _, a := range v.args {
			if strings.HasPrefix(a.Value, "-") && strings.Contains(a.Value, "p") {
				return add("hash -p points a command name at another program")
			}
		}
	case "shopt", "set":
		for _, a := range v.args {
			switch a.Value {
			case "expand_aliases", "dotglob", "nocaseglob", "extdebug", "globstar", "failglob", "nocasematch", "functrace":
				if v.name == "shopt" {
					return add("shopt " + a.Value + " changes what later commands name or match")
				}
			}
		}
	case "trap":
		if len(v.args) > 0 && v.args[0].Value != "-" && v.args[0].Value != "" && !strings.HasPrefix(v.args[0].Value, "-") {
			return add("trap runs " + v.args[0].Value + " later, on a signal or before every command")
		}
	}
	return nil
}

// gitRepoHits: git run in a repository outside the working directory
// (git -C, --git-dir, --work-tree, or a cd) reads that repository's
// configuration, whose hooks, fsmonitor and pager run.
func gitRepoHits(v view, cwds cwdSet, env Env) []hit {
	var dirs, gitDirs []Word
	args := v.args
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if !strings.HasPrefix(a, "-") {
			break
		}
		name, val, eq := strings.Cut(a, "=")
		switch name {
		case "-C", "--git-dir", "--work-tree":
			w := pathWord(val)
			if !eq && i+1 < len(args) {
				i++
				w = args[i]
			} else if !eq {
				continue
			}
			dirs = append(dirs, w)
			if name == "--git-dir" {
				gitDirs = append(gitDirs, w)
			}
		case "-c":
			i++
		}
	}
	var starts []string
	if len(dirs) == 0 {
		if !cwds.allInside() {
			return []hit{{id: FloorCodeExec, detail: "git runs in a folder outside the working directory, whose repository configuration can run programs"}}
		}
		starts = cwds.dirs
	}
	for _, d := range dirs {
		abs, ok := cwds.resolve(d)
		for _, a := range abs {
			ok = ok && env.inside(a)
		}
		if !ok {
			return []hit{{id: FloorCodeExec, detail: "git " + d.Raw + " uses a repository outside the working directory, whose configuration can run programs"}}
		}
		starts = append(starts, abs...)
	}
	for _, d := range gitDirs {
		abs, _ := cwds.resolve(d)
		for _, a := range abs {
			if !underDotGit(a) {
				return []hit{{id: FloorCodeExec, detail: "git --git-dir " + d.Raw + " uses a repository that is not a .git folder: its config and hooks are ordinary files the agent can write"}}
			}
		}
	}
	if len(gitDirs) == 0 {
		for _, s := range starts {
			noteRepoSearch(env.FS, s)
			if r, ok := env.foundRepo(s); ok && !underDotGit(r) {
				return []hit{{id: FloorCodeExec, detail: "git would use " + r + " as its repository (a bare repository inside the working directory): its config and hooks are ordinary files the agent can write"}}
			}
		}
	}
	return nil
}

// foundRepo returns the repository git finds from dir, walking up to
// the working directory: a folder with a .git entry ends the walk, a
// folder that is itself a repository (HEAD, objects, refs) is returned.
func (e Env) foundRepo(dir string) (string, bool) {
	if e.FS == nil {
		return "", false
	}
	for d := dir; e.inside(d); d = path.Dir(d) {
		if _, err := e.FS.Lstat(path.Join(d, ".git")); err == nil {
			return "", false
		}
		if e.isRepoDir(d) {
			return d, true
		}
		if d == e.Workdir || d == "/" {
			break
		}
	}
	return "", false
}

// isRepoDir reports a folder git would take for a repository.
func (e Env) isRepoDir(d string) bool {
	head, err := e.FS.Lstat(path.Join(d, "HEAD"))
	if err != nil || head.IsDir() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := e.FS.Lstat(path.Join(d, sub)); err != nil || !fi.IsDir() {
			if _, err := e.FS.Lstat(path.Join(d, "commondir")); err != nil {
				return false
			}
		}
	}
	return true
}

// underDotGit reports a path in a .git folder (the repository, its
// worktrees and modules), whose files the floor already protects.
func underDotGit(abs string) bool {
	for _, s := range splitSegs(abs) {
		if strings.EqualFold(s, ".git") {
			return true
		}
	}
	return false
}

// basetempHits: pytest deletes its --basetemp folder before it starts.
func basetempHits(v view, cwds cwdSet, env Env) []hit {
	for _, w := range optionFiles(v.args, []string{"--basetemp"}) {
		for _, d := range targetsOutside([]Word{w}, cwds, env, true) {
			return []hit{{id: FloorDeleteRecursiveOutside, detail: "pytest --basetemp deletes " + d}}
		}
		abs, _ := cwds.resolve(w)
		for _, a := range abs {
			if ents, err := readDir(env, a); err == nil && len(ents) > 0 {
				return []hit{{id: FloorGitDiscard, detail: "pytest --basetemp deletes the folder " + a + " and everything in it before it starts"}}
			}
		}
	}
	return nil
}

// readDir lists a folder through the policy's FS (an error without one).
func readDir(env Env, abs string) ([]fs.DirEntry, error) {
	if env.FS == nil {
		return nil, fs.ErrNotExist
	}
	return env.FS.ReadDir(abs)
}

// assignedNames are the variables a builtin sets without NAME=value:
// printf -v NAME, read [NAME...], mapfile/readarray [NAME], getopts S NAME.
func assignedNames(v view) []string {
	var out []string
	args := v.args
	switch v.name {
	case "printf":
		for i, a := range args {
			if a.Value == "-v" && i+1 < len(args) {
				out = append(out, args[i+1].Value)
			} else if n, ok := strings.CutPrefix(a.Value, "-v"); ok && n != "" {
				out = append(out, n)
			}
		}
	case "read", "mapfile", "readarray":
		for i := 0; i < len(args); i++ {
			a := args[i].Value
			switch {
			case strings.HasPrefix(a, "-") && len(a) > 1:
				takes := "adinNptu" // read's options with a value
				if v.name != "read" {
					takes = "dnOsuCc"
				}
				if last := a[len(a)-1:]; strings.Contains(takes, last) && i+1 < len(args) {
					if last == "a" && v.name == "read" {
						out = append(out, args[i+1].Value)
					}
					i++ // the option's value
				}
			default:
				out = append(out, a)
			}
		}
	case "getopts":
		if len(args) > 1 {
			out = append(out, args[1].Value)
		}
	}
	return out
}

// npxHits: npx runs a package's program from node_modules/.bin, and when
// the project has none it downloads the package of that name from the
// registry and runs it (without a terminal, without asking).
func npxHits(v view, cwds cwdSet, env Env) []hit {
	if env.FS == nil {
		return nil
	}
	tool := ""
	for i, a := range v.args {
		if a.Value == "--package" || a.Value == "-p" || strings.HasPrefix(a.Value, "--package=") {
			return []hit{{id: FloorCodeExec, detail: v.name + " " + a.Value + " downloads a package to run"}}
		}
		if !strings.HasPrefix(a.Value, "-") {
			tool = v.args[i].Value
			break
		}
	}
	if tool == "" || strings.ContainsAny(tool, "/@") || !cwds.allInside() {
		if strings.Contains(tool, "@") || strings.Contains(tool, "/") && !strings.HasPrefix(tool, ".") {
			return []hit{{id: FloorCodeExec, detail: v.name + " " + tool + " downloads a package to run"}}
		}
		return nil
	}
	for _, dir := range cwds.dirs {
		found := false
		for d := dir; env.inside(d); d = path.Dir(d) {
			if _, err := env.FS.Lstat(path.Join(d, "node_modules", ".bin", tool)); err == nil {
				found = true
				break
			}
			if d == env.Workdir {
				break
			}
		}
		if !found {
			return []hit{{id: FloorCodeExec, detail: v.name + " " + tool + ": the project has no " + tool + " in node_modules/.bin, so it would download a package of that name and run it"}}
		}
	}
	return nil
}

// npmRisky are npm's options that name a program, configuration or
// registry; npm (nopt) takes any unambiguous prefix of an option, so
// --script-shel is --script-shell (the eighth red team ran a script so).
var npmRisky = []string{"--script-shell", "--userconfig", "--globalconfig", "--node-options", "--registry", "--prefix",
	"--cache", "--init-module", "--shell", "--git", "--onload-script"}

// npmAbbrev reports whether option a of npm (or pnpm) is a shortened
// spelling of one of npmRisky, and which.
func npmAbbrev(tool, a string) (string, bool) {
	if tool != "npm" && tool != "pnpm" || !strings.HasPrefix(a, "--") {
		return "", false
	}
	name, _, _ := strings.Cut(a, "=")
	if len(name) < 4 {
		return "", false
	}
	for _, full := range npmRisky {
		if strings.HasPrefix(full, name) && (name != full || full == "--registry") {
			return full, true
		}
	}
	return "", false
}
