package permit

import (
	"path"
	"regexp"
	"strings"
)

// The agent's environment is the console's, plus what its agent entry
// sets (Env.Environ). A variable's name does not say what it holds:
// MYVAR, HTTPS_PROXY, REDIS_URL, GOPROXY and a CI's GIT_CONFIG_VALUE_0
// carry tokens and user:password@ as often as GITHUB_TOKEN does (red team
// 14b, findings 9 and 10). So what prints a variable is judged by its
// value, scanned like a file's content; and cd is judged with the CDPATH
// the shell will use (finding 14).

// envValue returns the value of name in the agent's environment: set
// says whether it is set there, known whether the environment is known.
// The last of several entries wins, as the launcher's overrides do.
func (e Env) envValue(name string) (val string, set, known bool) {
	if e.Environ == nil {
		return "", false, false
	}
	for i := len(e.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e.Environ[i], "="); ok && k == name {
			return v, true, true
		}
	}
	return "", false, true
}

// authValue finds what a header or a URL carries as a credential: a
// password in a URL (redis://:pw@host, http://u:pw@proxy) or an
// Authorization header's scheme and token.
var authValue = regexp.MustCompile(`(?i)://[^/\s@:]*:[^/\s@]+@|://[^/\s@:]{16,}@|\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{12,}`)

// valueSecret reports a value that holds a key or token, as a file's
// content would (contentSecret), or a credential in a URL or header.
func valueSecret(v string) bool {
	if v == "" {
		return false
	}
	if _, ok := contentSecret([]byte(v)); ok {
		return true
	}
	return authValue.MatchString(v)
}

// harmlessVars are variables printed without knowing the environment:
// paths, the user, the shell, the locale and Go's platform.
var harmlessVars = setOf("HOME", "PATH", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TZ",
	"TMPDIR", "HOSTNAME", "SHLVL", "EDITOR", "VISUAL", "PAGER", "GOPATH", "GOROOT", "GOOS", "GOARCH", "GOBIN",
	"GOCACHE", "GOMODCACHE", "GOVERSION", "GOHOSTOS", "GOHOSTARCH", "GOEXE", "GOMOD", "GOWORK", "CGO_ENABLED",
	"NODE_ENV", "VIRTUAL_ENV", "CONDA_DEFAULT_ENV", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "COLUMNS", "LINES")

// varHit judges printing the variable name: by its value when the
// environment is known; else only the harmless names pass. by says what
// prints it.
func (e Env) varHit(name, by string) (string, bool) {
	val, set, known := e.envValue(name)
	switch {
	case !known && !harmlessVars[name] && !strings.HasPrefix(name, "LC_"):
		return by + " prints " + name + ", whose value in the agent's environment is not known here", true
	case set && valueSecret(val):
		return by + " prints " + name + ", whose value in the agent's environment holds a key, token or password", true
	}
	return "", false
}

// envValueHits: printenv NAME, $NAME in any word, go env and cd under
// CDPATH, judged by the values of the agent's environment.
func (b *bashCheck) envValueHits(pt part) []hit {
	env, v := b.env, pt.view
	id := FloorCredentialRead
	if b.hasNetwork {
		id = FloorCredentialExfil
	}
	if env.FS == nil {
		return nil // pure: names only (envDump)
	}
	one := func(why string) []hit { return []hit{{id: id, detail: why}} }
	switch v.name {
	case "printenv":
		for _, a := range v.args {
			if a.Dynamic || strings.HasPrefix(a.Value, "-") {
				continue // envDump judges these
			}
			if why, ok := env.varHit(a.Value, "printenv"); ok {
				return one(why)
			}
		}
	case "go":
		if why, ok := goEnvHit(v.args, env); ok {
			return one(why)
		}
	}
	for _, w := range allWords(pt.cmd) {
		if !w.Dynamic {
			continue
		}
		for _, m := range expansionName.FindAllStringSubmatch(w.Raw, -1) {
			if val, set, _ := env.envValue(m[2]); m[1] == "" && set && valueSecret(val) {
				return one("$" + m[2] + " holds a key, token or password in the agent's environment")
			}
		}
	}
	return nil
}

// goEnvVar reports a variable go env prints.
func goEnvVar(k string) bool {
	return strings.HasPrefix(k, "GO") || strings.HasPrefix(k, "CGO_") ||
		k == "CC" || k == "CXX" || k == "AR" || k == "FC" || k == "PKG_CONFIG" || k == "GCCGO"
}

// goEnvHit: go env prints the variables of the environment and of the
// GOENV file (GOPROXY=https://user:token@proxy, GOAUTH, GOFLAGS …):
// the values it would print are scanned.
func goEnvHit(args []Word, env Env) (string, bool) {
	if len(args) == 0 || args[0].Value != "env" {
		return "", false
	}
	var names []string
	for _, a := range args[1:] {
		switch {
		case a.Dynamic:
			return "go env " + a.Raw + " may print any variable", true
		case a.Value == "-w" || a.Value == "-u" || strings.HasPrefix(a.Value, "-"):
			continue // -json, -changed; -w and -u are judged as writes
		default:
			names = append(names, a.Value)
		}
	}
	wanted := func(k string) bool {
		if len(names) == 0 {
			return goEnvVar(k)
		}
		for _, n := range names {
			if n == k {
				return true
			}
		}
		return false
	}
	if env.Environ == nil {
		for _, n := range names {
			if !harmlessVars[n] {
				return "go env " + n + ": the agent's environment, which sets it, is not known here", true
			}
		}
		if len(names) == 0 {
			return "go env prints the Go variables of the agent's environment, which is not known here", true
		}
	}
	for _, kv := range env.Environ {
		if k, val, _ := strings.Cut(kv, "="); wanted(k) && valueSecret(val) {
			return "go env prints " + k + ", whose value in the agent's environment holds a key, token or password", true
		}
	}
	if f := goEnvFile(env); f != "" {
		if body, err := readFS(env, f); err == nil {
			for _, l := range strings.Split(string(body), "\n") {
				if k, val, ok := strings.Cut(strings.TrimSpace(l), "="); ok && wanted(k) && valueSecret(val) {
					return "go env prints " + k + " as " + f + " sets it, with a key, token or password", true
				}
			}
		}
	}
	return "", false
}

// goEnvFile is the GOENV file go reads: $GOENV, else go/env under the
// user's configuration folder; "" when GOENV=off or unknown.
func goEnvFile(env Env) string {
	if f, set, _ := env.envValue("GOENV"); set {
		if f == "off" {
			return ""
		}
		return f
	}
	if x, set, _ := env.envValue("XDG_CONFIG_HOME"); set && path.IsAbs(x) {
		return path.Join(x, "go", "env")
	}
	home := env.Home
	if h, set, _ := env.envValue("HOME"); set && h != "" {
		home = h
	}
	if home == "" {
		return ""
	}
	return path.Join(home, ".config", "go", "env")
}

// gitEnvConfigSecret reports a token in the git configuration the agent's
// environment gives git: GIT_CONFIG_PARAMETERS, GIT_CONFIG_KEY_n and
// VALUE_n (how CI passes an extraheader), and the files GIT_CONFIG_GLOBAL
// and GIT_CONFIG_SYSTEM name. known is false when the environment is not.
func (e Env) gitEnvConfigSecret() (why string, found, known bool) {
	if e.Environ == nil {
		return "", false, false
	}
	for _, kv := range e.Environ {
		k, val, _ := strings.Cut(kv, "=")
		switch {
		case k == "GIT_CONFIG_PARAMETERS" || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") || strings.HasPrefix(k, "GIT_CONFIG_KEY_"):
			// a key carries one too: url.https://x:TOKEN@host/.insteadOf
			if valueSecret(val) || configSecret.MatchString(val) {
				return k + " in the agent's environment holds a key, token or password", true, true
			}
		case k == "GIT_CONFIG_GLOBAL" || k == "GIT_CONFIG_SYSTEM" || k == "GIT_CONFIG":
			if body, err := readFS(e, val); err == nil && (configSecret.Match(body) || hasToken(body)) {
				return val + " (" + k + " in the agent's environment) holds a credential", true, true
			}
		}
	}
	return "", false, true
}

// cdpathTarget returns where cd WORD goes from dir when the agent's
// environment sets CDPATH: bash tries each entry in order (an empty one
// is the current folder) and goes to the first that holds WORD, else to
// ./WORD. handled is false when CDPATH plays no part; unknown when it
// does and the folders cannot be looked up.
func cdpathTarget(w Word, dir string, env Env) (target string, handled, unknown bool) {
	v := w.Value
	if isAbsWord(w) || v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || v == "-" {
		return "", false, false
	}
	cdpath, set, _ := env.envValue("CDPATH")
	if !set || cdpath == "" {
		return "", false, false
	}
	if w.Dynamic || w.Glob || env.FS == nil {
		return "", true, true
	}
	for _, entry := range strings.Split(cdpath, ":") {
		base := entry
		if base == "" || base == "." {
			base = dir
		} else if strings.HasPrefix(base, "~") && env.Home != "" {
			base = env.Home + base[1:] // bash expands ~ when CDPATH is assigned; a literal ~ seen here is the same
		} else if !path.IsAbs(base) {
			base = path.Join(dir, base)
		}
		cand := path.Join(base, v)
		if fi, err := env.FS.Lstat(env.realPath(cand)); err == nil && fi.IsDir() {
			if cand == path.Join(dir, v) {
				return "", false, false // ./WORD itself: resolved as any path is
			}
			return cand, true, false
		}
	}
	return "", false, false
}
