package permit

import (
	"github.com/teamlead/teamlead/internal/textsafe"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// FloorLookAlike is text made to look like something it is not.
const FloorLookAlike = "look-alike"

// secretVar matches the names of variables that hold secrets.
var secretVar = regexp.MustCompile(`(?i)(TOKEN|SECRET|PASSW|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH|SESSION|COOKIE|_KEY$|^KEY$|DSN$|DATABASE_URL|PASS$|PASS_|_PASS|PASSPHRASE|WEBHOOK|CREDS|_SK$|^SK_|_PAT$|_PWD$)`)

// usuallySecretVar matches names whose values usually carry a
// credential in a URL, a header, a JAAS line or a git setting (red team
// 16b, finding 4: MONGODB_URI, PIP_INDEX_URL, OTEL_EXPORTER_OTLP_HEADERS,
// CI_JOB_JWT, HTTPS_PROXY printed user:password@ and tokens). Unlike
// secretVar's, they pass when the agent's environment sets them to a
// value with no credential in it (redis://localhost:6379).
var usuallySecretVar = regexp.MustCompile(`(?i)(_UR[LI]$|_UR[LI]_|^UR[LI]$|DSN|CONNECTION_?STRING|JAAS|_PW$|^PW$|PASSWD|LOGIN|JWT|_HEADERS?$|^(HTTPS?|ALL|FTP)_PROXY$|^GIT_CONFIG_PARAMETERS$|^GIT_CONFIG_VALUE_)`)

// secretVarName reports a variable whose printing asks: by its name, or
// (usuallySecretVar) unless its value in the agent's environment is known
// to hold no credential. Unset is not enough: the agent's shell may set
// it from the user's startup files.
func (e Env) secretVarName(n string) bool {
	if secretVar.MatchString(n) {
		return true
	}
	if !usuallySecretVar.MatchString(n) {
		return false
	}
	val, set, _ := e.envValue(n)
	return !set || valueSecret(val)
}

// jqEnv finds jq's environment ($ENV, $ ENV, env) and modules, which can
// hold any program (include "lib", import "lib" as x).
var jqEnv = regexp.MustCompile(`(^|[^A-Za-z0-9_$.])(\$\s*ENV|env)\b|\b(include|import)\s*"`)

// expansionName finds the variables a word expands: $NAME, ${NAME...}, ${!PREFIX*}.
var expansionName = regexp.MustCompile(`\$\{?(!?)([A-Za-z_][A-Za-z0-9_]*)`)

// envDumpers print the whole environment (or its secrets) when run as written.
func envDump(v view, env Env) (string, bool) {
	args := v.args
	switch v.name {
	case "env", "printenv":
		if len(args) == 0 {
			return v.name + " prints the environment, tokens and keys included", true
		}
		if v.name == "printenv" { // printenv NAME... prints those variables alone
			named := false
			for _, a := range args {
				switch n := a.Value; {
				case n == "-0" || n == "--null" || n == "--":
				case a.Dynamic || a.Glob || strings.HasPrefix(n, "-"):
					// a glob names whatever files match: touch
					// DATABASE_URL; printenv DATABASE_UR[L] (red team 21a)
					return "printenv " + a.Raw + " may print any variable", true
				case env.secretVarName(n):
					return "printenv " + n + " prints a secret", true
				default:
					named = true
				}
			}
			if !named {
				return v.name + " prints the environment, tokens and keys included", true
			}
		}
	case "set":
		if len(args) == 0 {
			return "set prints every variable, tokens and keys included", true
		}
	case "export", "declare", "typeset", "readonly", "local":
		if len(args) == 0 {
			return v.name + " prints variables, tokens and keys included", true
		}
		for _, a := range args {
			if a.Value == "-p" || strings.HasPrefix(a.Value, "-") && strings.ContainsAny(a.Value[1:], "px") && !strings.Contains(a.Value, "=") {
				return v.name + " " + a.Value + " prints variables, tokens and keys included", true
			}
		}
	case "npm", "yarn", "pnpm", "bun", "npx", "bunx", "pnpx":
		// npm run env is npm's own script: it prints the environment, as
		// the env program run through npm exec, npx or yarn does; options
		// come anywhere (npm run -s env, npm run -- env: red team 22a,
		// finding 3)
		var words []string
		dynamic := ""
		for _, a := range args {
			if a.Dynamic && dynamic == "" {
				dynamic = a.Raw
			}
			if !strings.HasPrefix(a.Value, "-") {
				words = append(words, a.Value)
			}
		}
		running := len(words) > 0 && (words[0] == "run" || words[0] == "run-script" || words[0] == "rum" || words[0] == "urn" ||
			words[0] == "exec" || words[0] == "x" || words[0] == "dlx")
		if running && dynamic != "" {
			return v.name + " " + dynamic + ": a script or program known only when it runs may print the environment", true
		}
		// an option's value may stand between (npm run -w pkg env)
		runs := running && slices.Contains(words[1:], "env")
		if runs || len(words) > 0 && words[0] == "env" && v.name != "pnpm" && v.name != "npm" {
			return v.name + " " + joinValues(args) + " prints the environment, tokens and keys included", true
		}
	case "make", "gmake", "bmake":
		for _, a := range args {
			v := a.Value
			if v == "--print-data-base" {
				return "make --print-data-base prints make's database, every environment variable included", true
			}
			if len(v) > 1 && v[0] == '-' && v[1] != '-' {
				for _, ch := range v[1:] {
					if ch == 'p' {
						return "make -p prints make's database, every environment variable included", true
					}
					if strings.ContainsRune("CjlOoWfIE", ch) {
						break // the rest is this option's value
					}
				}
			}
		}
	case "history", "fc":
		return v.name + " prints the shell history, where tokens typed on command lines stay", true
	case "jq", "gojq", "yq":
		args = shortSplit(v.name, args) // jq -nf q.jq is jq -n -f q.jq
		for i, a := range args {
			switch {
			case a.Value == "-f" || a.Value == "--from-file" || strings.HasPrefix(a.Value, "-L") || strings.HasPrefix(a.Value, "--from-file="),
				len(a.Value) > 8 && strings.HasPrefix("--from-file", strings.SplitN(a.Value, "=", 2)[0]):
				return v.name + " " + a.Value + " runs a program from a file, which can read the environment", true
			case i > 0 && args[i-1].Value == "--arg" || i > 1 && args[i-2].Value == "--arg":
				continue // a value, not the program
			case a.Dynamic:
				continue
			case jqEnv.MatchString(a.Value):
				return v.name + " " + a.Value + " reads the environment", true
			}
		}
	case "awk", "gawk", "mawk", "nawk":
		for _, a := range args {
			if strings.Contains(a.Value, "ENVIRON") {
				return "awk's ENVIRON reads the environment", true
			}
		}
	case "compgen":
		for _, a := range args {
			if a.Value == "-e" || a.Value == "-v" {
				return "", false
			}
		}
	}
	return "", false
}

// envHits: the environment or a secret variable printed, or the shell history read.
func (b *bashCheck) envHits(pt part) []hit {
	id := FloorCredentialRead
	if b.hasNetwork {
		id = FloorCredentialExfil
	}
	if why, ok := envDump(pt.view, b.env); ok {
		return []hit{{id: id, detail: why}}
	}
	for _, w := range allWords(pt.cmd) {
		if !w.Dynamic {
			continue
		}
		for _, m := range expansionName.FindAllStringSubmatch(w.Raw, -1) {
			if m[1] == "!" {
				return []hit{{id: id, detail: "${!" + m[2] + "...} lists variables by name"}}
			}
			if b.env.secretVarName(m[2]) {
				return []hit{{id: id, detail: "$" + m[2] + " holds a secret"}}
			}
		}
		if strings.Contains(w.Value, "/environ") {
			return []hit{{id: id, detail: w.Raw + " is a process's environment"}}
		}
	}
	if why := b.requestSecret(); why != "" {
		return []hit{{id: id, detail: why}}
	}
	return nil
}

// requestSecret says how the request as a whole passes a secret variable
// on, once per request (each part asks; a request of 5000 parts made the
// scan quadratic): a secret copied into another variable is the secret,
// x=$GITHUB_TOKEN; echo $x (red team 22a, finding 1); case $GITHUB_TOKEN in
// ghp_a*) tells it one guess at a time (finding 8); and a name in
// arithmetic is printed in the error (arithSecret).
func (b *bashCheck) requestSecret() string {
	if b.secretDone {
		return b.secretWhy
	}
	b.secretDone = true
	var named []string
	for _, a := range b.assigns {
		named = append(named, a.Raw)
	}
	for _, c := range b.all {
		if c.Control {
			named = append(named, c.Text)
		}
	}
	for _, t := range named {
		for _, m := range expansionName.FindAllStringSubmatch(t, -1) {
			if m[1] != "!" && b.env.secretVarName(m[2]) {
				b.secretWhy = "$" + m[2] + " holds a secret, and " + firstLine(t) + " passes it on"
				return b.secretWhy
			}
		}
	}
	if n := arithSecret(b.raw, b.env); n != "" {
		b.secretWhy = "bash evaluates the names in arithmetic (and the names their values hold), and an error prints the value: " + n + " holds a secret"
	}
	return b.secretWhy
}

// arithMarker finds where bash may evaluate text as arithmetic: $((…)),
// ((…)), $[…], let, [[ -eq … ]], declare -i, a subscript, ${x:off}.
var arithMarker = regexp.MustCompile(`\(\(|\$\[|let|-(eq|ne|lt|le|gt|ge)|(declare|typeset|local)\s+-\w*i|\[|\$\{[^}]*:`)

var shellName = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// arithSecret returns a secret variable named anywhere in a text that has
// an arithmetic context: echo $((DATABASE_URL)) prints its value in the
// error (red team 21a, finding 5), and so does n=DATABASE_URL; echo $((n)).
func arithSecret(text string, env Env) string {
	if !arithMarker.MatchString(text) {
		return ""
	}
	for _, n := range shellName.FindAllString(text, -1) {
		if env.secretVarName(n) {
			return n
		}
	}
	return ""
}

// hiddenChar reports a character that hides or reorders text.
func hiddenChar(text string) (string, bool) {
	for _, r := range text {
		switch {
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
			return "a bidirectional control character reorders what is shown", true
		case r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF, r == 0x00AD:
			return "a zero-width character hides in the text", true
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			return "a control character hides in the text", true
		case textsafe.Dangerous(r) && r >= 0x80:
			return "an invisible character hides in the text", true
		}
	}
	return "", false
}

// lookAlike reports characters that make text look like what it is not:
// bidirectional controls, zero-width characters, other control characters,
// or a command name or option spelled with non-ASCII letters or dashes.
func lookAlike(text string, c Command, v view) (string, bool) {
	if why, ok := hiddenChar(text); ok {
		return why, true
	}
	if len(c.Args) > 0 && !isASCII(c.Args[0].Value) {
		return "the command name " + c.Args[0].Value + " holds non-ASCII letters that look like others", true
	}
	if v.name != "" && !isASCII(v.name) {
		return "the command name " + v.name + " holds non-ASCII letters that look like others", true
	}
	for _, a := range c.Args {
		for _, r := range a.Value {
			if unicode.Is(unicode.Pd, r) && r != '-' || r == 0x2212 || r == 0xFE63 || r == 0xFF0D {
				if strings.IndexRune(a.Value, r) == 0 || strings.HasPrefix(a.Value, "-") {
					return a.Value + " is an option written with a dash that is not -", true
				}
			}
			break
		}
	}
	return "", false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// credentialSamples stand for every credential file name a glob could match.
var credentialSamples = []string{".env", ".env.local", ".env.production", ".netrc", ".npmrc", ".pypirc",
	".git-credentials", "id_rsa", "id_ed25519", "credentials.json", ".pgpass", "server.pem", "server.key",
	".bash_history", ".zsh_history", ".vault-token", ".htpasswd", "credentials"}

// globCredential reports a credential a glob word may expand to: by its
// pattern alone (.e*, .[e]nv, ~/.s*/id_*), and, with an FS, by the files
// it really matches.
func globCredential(w Word, cwds cwdSet, read bool) (string, bool) {
	if !w.Glob {
		return "", false
	}
	pat := w.Value
	segs := strings.Split(pat, "/")
	last := segs[len(segs)-1]
	literal := strings.Trim(last, "*?[]") != "" && strings.Trim(last, "*?") != ""
	for _, s := range credentialSamples {
		if !literal {
			break // a bare * says nothing by itself; the FS below knows what it matches
		}
		if globMatch(last, s) {
			// a credential dir in the folder part too, or a file name alone
			if s != "credentials" || strings.Contains(pat, ".aws") || strings.Contains(pat, "*") && len(segs) > 1 && globMatchAny(segs[len(segs)-2], ".aws") {
				return w.Raw + " may match " + s, true
			}
		}
	}
	for _, seg := range segs[:len(segs)-1] {
		for _, d := range credentialDirs {
			if !strings.Contains(d, "/") && globMatch(seg, d) && strings.ContainsAny(seg, "*?[") {
				return w.Raw + " may match ~/" + d, true
			}
		}
	}
	env := cwds.env
	if env.FS == nil {
		return "", false
	}
	dirs := cwds.dirs
	if isAbsWord(w) {
		dirs = []string{"/"}
	}
	for _, d := range dirs {
		base := d
		p := pat
		if w.Tilde && (p == "~" || strings.HasPrefix(p, "~/")) && env.Home != "" {
			p = env.Home + p[1:]
		}
		for _, m := range expandGlob(env, base, p, 2000) {
			if env.secretFile(m) {
				return w.Raw + " matches " + m, true
			}
			if !read {
				continue
			}
			// a command that prints what the glob matches prints a
			// token in any of them (red team 13b, finding 2: cat d/*)
			if why, ok := env.readSecret(m); ok {
				return w.Raw + " matches " + m + why, true
			}
		}
	}
	return "", false
}

func globMatchAny(pat, name string) bool { return globMatch(pat, name) }

// globMatch is bash's match of one path segment: * and ? do not match a
// leading dot unless the pattern starts with one.
func globMatch(pat, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") {
		return false
	}
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

// expandGlob lists up to max files a glob pattern (relative to dir)
// matches on env's FS.
func expandGlob(env Env, dir, pat string, max int) []string {
	out, _ := expandGlobAll(env, dir, pat, max)
	return out
}

// expandGlobAll is expandGlob, with false when there were more than max
// matches at some segment (those past max are not listed).
func expandGlobAll(env Env, dir, pat string, max int) ([]string, bool) {
	all := true
	start := dir
	if strings.HasPrefix(pat, "/") {
		start = "/"
	}
	cur := []string{env.realPath(start)}
	for _, seg := range splitSegs(pat) {
		var next []string
		for _, c := range cur {
			if !strings.ContainsAny(seg, "*?[") {
				next = append(next, env.realPath(path.Join(c, seg)))
				continue
			}
			ents, err := env.FS.ReadDir(c)
			if err != nil {
				continue
			}
			for _, e := range ents {
				if globMatch(seg, e.Name()) {
					next = append(next, env.realPath(path.Join(c, e.Name())))
				}
			}
		}
		if len(next) > max {
			next, all = next[:max], false
		}
		cur = next
	}
	return cur, all
}

// treeCredentials returns a credential file under dir (hidden ones only
// when hidden is set), walking at most maxWalk entries; a tree too large to
// walk counts as holding one.
func treeCredentials(env Env, dir string, hidden bool) (string, bool) {
	return treeCredentialsWhere(env, dir, hidden, func(string) bool { return true })
}

// treeCredentialsWhere is treeCredentials for the credential files keep
// accepts.
func treeCredentialsWhere(env Env, dir string, hidden bool, keep func(string) bool) (string, bool) {
	return treeSecrets(env, dir, hidden, keep, true, false)
}

// treeSecrets is treeCredentialsWhere; without content, files are judged
// by name and private keys at their start alone (flake8 prints where it
// finds a problem, not the lines of a Python file that holds a token).
//
// With follow (grep -R, rg -L, find -L), a link to a folder is walked
// into wherever it leads, out of the working directory too (red team
// 13b, finding 19: grep -R followed lnk/out to a key outside); each real
// folder is walked once.
func treeSecrets(env Env, dir string, hidden bool, keep func(string) bool, content, follow bool) (string, bool) {
	if env.FS == nil {
		return "", false
	}
	walked := map[string]bool{}
	const maxWalk = 50000
	seen := 0
	budget := newScanBudget()
	secret := func(shown, file string, names ...string) (string, bool) {
		why, ok, over := "", env.secretFileScan(file, keyScanWalk), false
		if content {
			why, ok, over = env.walkSecret(file, budget)
		}
		if !ok {
			return "", false
		}
		for _, n := range names {
			if over || keep(n) {
				return shown + why, true
			}
		}
		return "", false
	}
	queue := []string{env.realPath(dir)}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		fi, err := env.FS.Lstat(d)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			if p, ok := secret(d, d, d); ok {
				return p, true
			}
			continue
		}
		ents, err := env.FS.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if seen++; seen > maxWalk {
				return d + " (too many files to look through)", true
			}
			name := e.Name()
			full := path.Join(d, name)
			if strings.HasPrefix(name, ".") && !hidden || name == ".git" || e.IsDir() && dependencyDirs[name] {
				continue
			}
			if e.Type()&fs.ModeSymlink != 0 {
				// keep by the link's name too: find -name tests the name.
				r := env.realPath(full)
				if fi, err := env.FS.Lstat(r); follow && err == nil && fi.IsDir() {
					if !walked[r] {
						walked[r] = true
						queue = append(queue, r)
					}
					continue
				}
				if p, ok := secret(full+" -> "+r, r, full, r); ok {
					return p, true
				}
				continue
			}
			if e.IsDir() {
				queue = append(queue, full)
				continue
			}
			if p, ok := secret(full, full, full); ok {
				return p, true
			}
		}
	}
	return "", false
}

// prettierPrints returns the operands of a prettier run that prints the
// files it formats (no --check, --list-different or --write): every
// file its patterns and folders reach, dot files and git-ignored ones
// included, which it prints unchanged.
func prettierPrints(v view) ([]Word, bool) {
	strs := make([]string, len(v.args))
	for i, a := range v.args {
		strs[i] = a.Value
	}
	tool, rest := jsTool(v.name, strs)
	if tool != "prettier" || v.name != "prettier" && !jsRunners[v.name] {
		return nil, false
	}
	args := v.args[len(v.args)-len(rest):]
	var ops []Word
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		switch {
		case a == "-c" || a == "--check" || a == "-l" || a == "--list-different" || a == "-w" || a == "--write" ||
			a == "--find-config-path" || a == "--file-info" || a == "--support-info" || a == "--help" || a == "-h" || a == "--version" || a == "-v":
			return nil, false
		case strings.HasPrefix(a, "-"):
			if prettierValueOpts[a] {
				i++
			}
		default:
			w := args[i]
			if j := strings.IndexAny(w.Value, "*?[{!"); j >= 0 { // a glob prettier expands itself, with dot files
				w = pathWord(path.Dir(w.Value[:j] + "x"))
			}
			ops = append(ops, w)
		}
	}
	return ops, len(ops) > 0
}

// prettierValueOpts are prettier's options that take the next word.
var prettierValueOpts = setOf("--parser", "--plugin", "--config", "--ignore-path", "--cache-location", "--cache-strategy",
	"--log-level", "--stdin-filepath", "--print-width", "--tab-width", "--trailing-comma", "--arrow-parens",
	"--end-of-line", "--prose-wrap", "--quote-props", "--html-whitespace-sensitivity", "--embedded-language-formatting",
	"--object-wrap", "--experimental-operator-position", "--config-precedence", "--cursor-offset", "--range-start", "--range-end")

// ignoreFiles are the files of ignore rules rg and ag read in every folder
// they search; a !negation in one whitelists a hidden file, which they then
// search without --hidden (red team 11b, finding 5: "!.env" in .ignore).
var ignoreFiles = []string{".ignore", ".rgignore", ".gitignore", ".agignore"}

// ignoreWhitelists returns the folders under dir (a search without
// --hidden enters them) whose ignore files hold a !negation, or dir itself
// when one of the folders above it up to the working directory does or
// there are too many folders to look through.
func ignoreWhitelists(env Env, dir string) []string {
	if env.FS == nil {
		return nil
	}
	negates := func(d string) bool {
		for _, f := range ignoreFiles {
			body, err := env.FS.ReadFile(path.Join(d, f))
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(body), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "!") {
					return true
				}
			}
		}
		return false
	}
	for d := path.Dir(dir); env.strictlyInside(d) || d == env.Workdir; d = path.Dir(d) {
		if negates(d) {
			return []string{dir}
		}
		if d == env.Workdir {
			break
		}
	}
	const maxDirs = 20000
	var out []string
	queue := []string{dir}
	for seen := 0; len(queue) > 0; {
		d := queue[0]
		queue = queue[1:]
		if negates(d) {
			out = append(out, d)
			continue // its whole tree is searched with hidden files
		}
		ents, err := env.FS.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || dependencyDirs[e.Name()] {
				continue
			}
			if seen++; seen > maxDirs {
				return []string{dir}
			}
			queue = append(queue, path.Join(d, e.Name()))
		}
	}
	return out
}

// dependencyDirs are folders of downloaded packages a tree walk skips: they
// are large, and a credential copied into one is caught when it is copied.
var dependencyDirs = map[string]bool{"node_modules": true, ".venv": true, "venv": true, "__pycache__": true,
	".tox": true, ".mypy_cache": true, ".pytest_cache": true, ".gradle": true, ".next": true, ".cache": true}

// readers print the contents of the files they are given.
var readers = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true, "grep": true,
	"egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "sort": true, "uniq": true, "base64": true,
	"xxd": true, "od": true, "hexdump": true, "strings": true, "awk": true, "sed": true, "jq": true, "yq": true,
	"nl": true, "tac": true, "rev": true, "paste": true, "cut": true, "tr": true, "fold": true, "fmt": true,
	"column": true, "bat": true, "view": true, "vim": true, "nvim": true, "vi": true, "emacs": true, "nano": true,
	"cp": true, "tar": true, "zip": true, "gzip": true, "bzip2": true, "xz": true, "zstd": true, "diff": true,
	"cmp": true, "comm": true, "join": true, "split": true, "csplit": true, "dd": true, "tee": true, "perl": true,
	"python": true, "python3": true, "ruby": true, "node": true, "curl": true, "wget": true, "nc": true,
	"scp": true, "rsync": true, "openssl": true, "gpg": true, "iconv": true, "expand": true, "unexpand": true,
	"pr": true, "look": true, "zcat": true, "zless": true, "bzcat": true, "xzcat": true, "cpio": true, "pax": true}

// harmlessExec are commands find -exec may run on every file without
// printing what the files hold.
var harmlessExec = map[string]bool{"ls": true, "stat": true, "file": true, "wc": true, "du": true, "touch": true,
	"basename": true, "dirname": true, "echo": true, "test": true, "[": true, "realpath": true, "readlink": true,
	"md5sum": true, "sha1sum": true, "sha256sum": true, "shasum": true, "true": true, "gofmt": true, "chmod": true}

// recursiveHits: a command that reads every file of a folder (grep -r,
// rg --hidden, find -exec cat, tar c, zip -r, diff -r, cp -r, xargs cat) when that folder
// holds a credential file.
func (b *bashCheck) recursiveHits(pt part) []hit {
	v := pt.view
	env := b.env
	if env.FS == nil {
		return nil
	}
	ops, opts := operands(v.args)
	var roots []Word
	hidden := true
	var whitelisted []string     // folders whose ignore files whitelist hidden files
	var prints func(string) bool // nil: every file it reaches is printed
	content := true              // files are looked at for keys and tokens, not only their names
	follow := followsLinks(v)    // links to folders are walked into
	switch {
	case v.extraArgs && readers[v.name]:
		if _, ok := b.pipedListing(pt); !ok {
			v.name = "xargs " + v.name // files known only when it runs
		} // else find src -name '*.go' | xargs cat: names looked at, none a credential (lister16b.go)
	}
	if isPython(v.name) {
		v.name = "python" // python3.12 -m flake8 is python -m flake8
	}
	if r, ok := prettierPrints(v); ok {
		// prettier prints the files its patterns reach, dot files and
		// git-ignored ones as they are (red team 11b, finding 4)
		v.name, ops, opts = "prettier", r, nil
	}
	switch v.name {
	case "prettier":
		roots = ops
	case "grep", "egrep", "fgrep", "rgrep", "xargs grep", "xargs egrep":
		rec := v.name == "rgrep" || v.name == "xargs grep" || v.name == "xargs egrep" || grepRecursive(v.args)
		if !rec {
			return nil
		}
		prints, roots = searchArgs(env, v.args, "grep")
		if inc := grepIncludes(v.args); len(inc) > 0 {
			// grep --include=GLOB searches only the files whose base name
			// matches a GLOB: the others are provably not printed
			all := prints
			prints = func(f string) bool { return nameMatchesAny(inc, path.Base(f), false) && all(f) }
		}
	case "rg", "ag", "ack", "ripgrep":
		hidden = hasShort(opts, ".") || hasLong(opts, "--hidden", "--unrestricted", "--all-types", "--search-zip") || v.name != "rg" && hasShort(opts, "uaU")
		for _, o := range opts {
			if strings.HasPrefix(o, "-uu") || strings.Contains(o, "uu") && !strings.HasPrefix(o, "--") {
				hidden = true
			}
		}
		if so, _, _ := searchWords(v.args, "rg"); v.name != "ag" && v.name != "ack" && countOpt(so, "-u") >= 2 {
			hidden = true // -u -u is -uu
		}
		prints, roots = searchArgs(env, v.args, v.name)
		if sel, ok := rgSelects(v.args); ok && v.name != "ag" && v.name != "ack" {
			// a glob of its own whitelists the files it matches past the
			// hidden-file filter and .gitignore (red team 12b, finding 5)
			hidden = true
			all := prints
			prints = func(f string) bool { return sel(f) && all(f) }
		}
		if !hidden && !hasLong(opts, "--no-ignore", "--no-ignore-dot", "--no-ignore-files") {
			if len(roots) == 0 {
				roots = []Word{{Raw: ".", Value: "."}}
			}
			for _, r := range roots {
				if abs, ok := pt.cwds.resolve(r); ok {
					for _, a := range abs {
						whitelisted = append(whitelisted, ignoreWhitelists(env, a)...)
					}
				}
			}
		}
	case "flake8", "python":
		args := v.args
		if v.name != "flake8" {
			if !isPyModule(args, "flake8") || len(args) < 2 {
				return nil
			}
			args = args[2:]
		}
		sel, fops, ok := flake8Selects(args)
		if !ok {
			return nil
		}
		// --filename replaces *.py, and flake8 skips no dot file: it
		// lints (and prints with --show-source) .env (red team 12b, finding 5)
		prints, roots, content = sel, fops, false
	case "git":
		g := parseGit(v.args)
		_, gopts := operands(g.args)
		if g.sub != "grep" {
			return nil
		}
		prints, roots = searchArgs(env, g.args, "git grep")
		if !hasLong(gopts, "--untracked", "--no-index") {
			return b.gitGrepHits(pt, g, prints)
		}
		roots = pathspecRoots(roots, env)
	case "find":
		starts, i := findStarts(v.args)
		exec := false
		for ; i < len(v.args); i++ {
			switch v.args[i].Value {
			case "-exec", "-execdir", "-ok", "-okdir":
				if i+1 < len(v.args) && !harmlessExec[cmdName(v.args[i+1])] {
					exec = true
				}
			}
		}
		if !exec {
			return nil
		}
		roots = starts
		prints = findNames(v.args[len(starts):])
	case "diff", "cp": // diff -r prints files, cp -r copies them where they can be read
		if !hasShort(opts, "rRa") && !hasLong(opts, "--recursive", "--archive") || len(ops) < 2 {
			return nil
		}
		roots = ops
		if v.name == "cp" {
			roots = ops[:len(ops)-1]
		}
	case "rsync", "scp", "sftp", "rclone":
		if v.name == "rsync" && !hasShort(opts, "ra") && !hasLong(opts, "--recursive", "--archive") ||
			v.name == "scp" && !hasShort(opts, "r") || len(ops) < 2 {
			return nil
		}
		roots = ops[:len(ops)-1]
	case "tar", "bsdtar":
		t := parseTar(v.args)
		if !t.create {
			return nil
		}
		roots = t.members
		if len(t.dirs) > 0 { // tar -C dir -cf k.tar . reads dir, not where it runs
			roots = nil
			for _, d := range t.dirs {
				for _, m := range t.members {
					if d.Dynamic || m.Dynamic || isAbsWord(m) {
						roots = append(roots, m)
						continue
					}
					roots = append(roots, Word{Raw: d.Raw + "/" + m.Raw, Value: path.Join(d.Value, m.Value), Tilde: d.Tilde})
				}
			}
		}
	case "zip", "7z", "cpio", "pax":
		create := true
		for _, o := range opts {
			if !strings.HasPrefix(o, "--") && strings.ContainsAny(o, "cr") || o == "--create" || o == "--append" {
				create = true
			}
		}
		if len(v.args) > 0 && !strings.HasPrefix(v.args[0].Value, "-") && strings.ContainsAny(v.args[0].Value, "cr") {
			create = true // tar czf x.tgz dir
		}
		if !create || v.name == "zip" && !hasShort(opts, "r") && !hasLong(opts, "--recurse-paths") {
			if v.name != "zip" {
				return nil
			}
		}
		roots = ops
	default:
		if !strings.HasPrefix(v.name, "xargs ") {
			return nil
		}
	}
	if len(roots) == 0 || strings.HasPrefix(v.name, "xargs ") {
		roots = []Word{{Raw: ".", Value: "."}}
	}
	type root struct {
		dir    string
		hidden bool
	}
	var dirs []root
	for _, r := range roots {
		abs, ok := pt.cwds.resolve(r)
		if !ok {
			continue
		}
		for _, a := range abs {
			dirs = append(dirs, root{a, hidden})
		}
	}
	for _, w := range whitelisted {
		dirs = append(dirs, root{w, true})
	}
	keep := func(string) bool { return true }
	if prints != nil {
		keep = prints
	}
	for _, r := range dirs {
		if p, found := treeSecrets(env, r.dir, r.hidden, keep, content, follow); found {
			id := FloorCredentialRead
			if b.hasNetwork {
				id = FloorCredentialExfil
			}
			return []hit{{id: id, detail: v.name + " reads every file under " + r.dir + ", " + p + " among them"}}
		}
	}
	return nil
}

// pathspecRoots turns git's pathspecs into the folders they search: git,
// not the shell, matches a quoted glob or a :(magic) one, and '*' takes
// .env as well (git grep --no-index SECRET -- '*', round 21 self-attack);
// one with top magic (:/, :(top)) searches from the top, taken as the
// working directory.
func pathspecRoots(specs []Word, env Env) []Word {
	var out []Word
	for _, w := range specs {
		v := w.Value
		if !w.Dynamic && !strings.HasPrefix(v, ":") && !strings.ContainsAny(v, "*?[\\") {
			out = append(out, w)
			continue
		}
		dir := "."
		if magic, rest, ok := strings.Cut(strings.TrimPrefix(v, ":"), ")"); strings.HasPrefix(v, ":(") && ok {
			if strings.Contains(magic, "top") {
				dir = env.Workdir
			}
			v = rest
		} else if strings.HasPrefix(v, ":/") {
			dir = env.Workdir
		}
		if dir == "" {
			dir = "."
		}
		out = append(out, pathWord(dir))
		if i := strings.IndexAny(v, "*?[\\"); i > 0 && !w.Dynamic && !strings.HasPrefix(v, ":") {
			// src/*.go searches src: keep the folder before the glob too
			if d := path.Dir(v[:i]); d != "." {
				out = append(out[:len(out)-1], pathWord(d))
			}
		}
	}
	return out
}

// gitGrepHits: git grep searches the tracked files of the folder it runs
// in (and --cached their staged content): one holding a key or token on a
// line its pattern prints is read (red team 13b, finding 2: git grep
// TOKEN). Without a list of the tracked files, every file is looked at.
func (b *bashCheck) gitGrepHits(pt part, g gitInfo, prints func(string) bool) []hit {
	env := b.env
	id := FloorCredentialRead
	if b.hasNetwork {
		id = FloorCredentialExfil
	}
	_, gopts := operands(g.args)
	hl, ok := env.FS.(historyLister)
	for _, d := range pt.cwds.dirs {
		if hasLong(gopts, "--cached") {
			if found, known := env.stagedSecret(d); !known || found != "" {
				return []hit{{id: id, detail: "git grep --cached searches what is staged, where a key or token may be (" + found + ")"}}
			}
		}
		var names []string
		var err error
		if ok {
			names, err = hl.Pending(d, true, nil)
		}
		if !ok || err != nil {
			if p, found := treeCredentialsWhere(env, d, true, prints); found {
				return []hit{{id: id, detail: "git grep searches the tracked files under " + d + ", " + p + " among them"}}
			}
			continue
		}
		budget := newScanBudget()
		for _, n := range names {
			abs := path.Join(d, n)
			if why, secret, over := env.walkSecret(abs, budget); secret && (over || prints(abs)) {
				return []hit{{id: id, detail: "git grep searches the tracked file " + abs + why + ", and its pattern prints the secret's line"}}
			}
		}
	}
	return nil
}

// followsLinks reports a walk that follows symbolic links to folders:
// grep -R (--dereference-recursive), rg/ag -L (--follow), find -L/-H and
// -follow, cp/rsync -L, tar -h (--dereference), zip without -y.
func followsLinks(v view) bool {
	switch strings.TrimPrefix(v.name, "xargs ") {
	case "grep", "egrep", "fgrep", "rgrep":
		opts, _, _ := searchWords(v.args, "grep")
		for _, o := range opts {
			if o.name == "-R" || o.name == "--dereference-recursive" {
				return true
			}
		}
	case "rg", "ripgrep", "ag", "ack":
		opts, _, _ := searchWords(v.args, "rg")
		for _, o := range opts {
			if o.name == "-L" || o.name == "--follow" || o.name == "-f" && v.name == "ag" {
				return true
			}
		}
	case "find":
		for _, a := range v.args {
			if a.Value == "-L" || a.Value == "-follow" {
				return true
			}
		}
	case "cp", "rsync", "tar", "bsdtar", "diff":
		_, opts := operands(v.args)
		short := map[string]string{"cp": "L", "rsync": "L", "tar": "h", "bsdtar": "hL", "diff": ""}[v.name]
		return short != "" && hasShort(opts, short) || hasLong(opts, "--dereference", "--copy-links")
	case "zip":
		_, opts := operands(v.args)
		return !hasShort(opts, "y") && !hasLong(opts, "--symlinks") // zip -r follows links unless -y
	}
	return false
}

// findNames returns, for a find expression that only tests names before
// its first -exec (find . -name '*.go' -exec head {} +), a test of
// whether a file reaches the -exec by its name; nil (every file does) for
// any other expression: -o, !, groups, other tests, a name known only when
// it runs, or a test after the -exec (find . -exec cat {} + -name x runs
// cat on every file).
func findNames(expr []Word) func(string) bool {
	match, i, ok := findTests(expr)
	if !ok || match == nil || i >= len(expr) {
		return nil
	}
	switch expr[i].Value {
	case "-exec", "-execdir", "-ok", "-okdir":
		return match
	}
	return nil
}

// findTests reads find's -name, -iname, -type, -maxdepth and -mindepth
// from the start of its expression: the test of the names they let
// through (nil when there is none), and where the expression goes on;
// false for a test that cannot be read (a pattern known only when it runs).
func findTests(expr []Word) (match func(string) bool, next int, ok bool) {
	var names []string
	var fold []bool
	i := 0
loop:
	for ; i < len(expr); i++ {
		w := expr[i]
		switch w.Value {
		case "-name", "-iname":
			if i+1 >= len(expr) || expr[i+1].Dynamic {
				return nil, i, false
			}
			if _, err := path.Match(expr[i+1].Value, ""); err != nil {
				return nil, i, false
			}
			names, fold = append(names, expr[i+1].Value), append(fold, w.Value == "-iname")
			i++
		case "-type", "-maxdepth", "-mindepth":
			if i+1 >= len(expr) || expr[i+1].Dynamic {
				return nil, i, false
			}
			i++
		default:
			break loop
		}
	}
	if len(names) == 0 {
		return nil, i, true
	}
	return func(p string) bool {
		base := path.Base(p)
		for k, n := range names {
			if fold[k] {
				n, base = strings.ToLower(n), strings.ToLower(base)
			}
			if ok, _ := path.Match(n, base); !ok {
				return false
			}
		}
		return true
	}, i, true
}

// countOpt counts the times an option is given.
func countOpt(opts []searchOpt, name string) int {
	n := 0
	for _, o := range opts {
		if o.name == name {
			n++
		}
	}
	return n
}

// searchPrints returns, for grep, rg, ag, ack and git grep, a test of
// whether the search would print a line of a file: its patterns (-e, the
// first operand) matched against the file's lines, with -i, -F and -E/-P
// taken into account. A search it cannot judge (-v, -f FILE, -L, a pattern
// Go cannot compile, a computed pattern) prints every file.
func searchPrints(env Env, args []Word, tool string) func(string) bool {
	p, _ := searchArgs(env, args, tool)
	return p
}

// searchValues are the options of each search tool that take a value
// (short ones glued on or in the next word, long ones after = or in the
// next word): their values are neither the pattern nor a folder.
var searchValues = map[string]struct {
	short string
	long  map[string]bool
}{
	"grep": {"ABCDdefm", setOf("--after-context", "--before-context", "--context", "--devices", "--directories",
		"--regexp", "--file", "--max-count", "--label", "--include", "--exclude", "--exclude-dir", "--exclude-from",
		"--binary-files", "--group-separator")},
	"rg": {"ABCdEefgjMmrtT", setOf("--after-context", "--before-context", "--context", "--color", "--colors",
		"--context-separator", "--field-context-separator", "--field-match-separator", "--max-depth", "--maxdepth",
		"--encoding", "--engine", "--file", "--glob", "--iglob", "--ignore-file", "--threads", "--max-columns",
		"--max-count", "--max-filesize", "--path-separator", "--pre", "--pre-glob", "--replace", "--sort", "--sortr",
		"--type", "--type-not", "--type-add", "--type-clear", "--dfa-size-limit", "--regex-size-limit", "--regexp",
		"--hostname-bin", "--hyperlink-format", "--generate")},
	"ag": {"ABCGgmpW", setOf("--after", "--before", "--context", "--depth", "--file-search-regex", "--ignore",
		"--ignore-dir", "--max-count", "--path-to-ignore", "--pager", "--workers", "--width", "--color-line-number",
		"--color-match", "--color-path")},
	"ack": {"ABCmg", setOf("--after-context", "--before-context", "--context", "--max-count", "--type", "--ignore-dir",
		"--noignore-dir", "--ignore-file", "--match", "--output", "--pager", "--type-add", "--type-set", "--type-del",
		"--ackrc", "--regexp")},
	"git grep": {"ABCefm", setOf("--after-context", "--before-context", "--context", "--max-count", "--max-depth",
		"--threads")},
}

// searchTool is the table a search command is read with.
func searchTool(tool string) string {
	switch tool {
	case "egrep", "fgrep", "rgrep", "xargs grep", "xargs egrep":
		return "grep"
	case "ripgrep":
		return "rg"
	}
	return tool
}

// searchOpt is one option of a search command with its value.
type searchOpt struct {
	name string // -x or --long
	val  string
	has  bool // a value was given
}

// searchWords takes a search command line apart: its options (with the
// values the table says they take) and its operands (the pattern, unless
// -e or -f gave one, then files and folders).
func searchWords(args []Word, tool string) (opts []searchOpt, ops []Word, dynOpt bool) {
	tab := searchValues[searchTool(tool)]
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		switch {
		case a.Dynamic && strings.HasPrefix(a.Raw, "-"):
			dynOpt = true
		case a.Dynamic || v == "-" || !strings.HasPrefix(v, "-"):
			ops = append(ops, a)
		case v == "--":
			return opts, append(ops, args[i+1:]...), dynOpt
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			o := searchOpt{name: name, val: val, has: eq}
			if !eq && tab.long[name] && i+1 < len(args) {
				i++
				o.val, o.has = args[i].Value, true
			}
			opts = append(opts, o)
		default:
			for j := 1; j < len(v); j++ {
				c := v[j]
				o := searchOpt{name: "-" + string(c)}
				if strings.IndexByte(tab.short, c) >= 0 {
					o.val, o.has = v[j+1:], j+1 < len(v)
					if !o.has && i+1 < len(args) {
						i++
						o.val, o.has = args[i].Value, true
					}
					opts = append(opts, o)
					break
				}
				opts = append(opts, o)
			}
		}
	}
	return opts, ops, dynOpt
}

// grepRecursive reports grep -r, -R, -d recurse, --directories=recurse.
func grepRecursive(args []Word) bool {
	opts, _, _ := searchWords(args, "grep")
	for _, o := range opts {
		switch {
		case o.name == "-r" || o.name == "-R" || o.name == "--recursive" || o.name == "--dereference-recursive":
			return true
		case (o.name == "-d" || o.name == "--directories") && o.val == "recurse":
			return true
		}
	}
	return false
}

// searchArgs is searchPrints, and the folders and files the search reads
// (its operands past the pattern, without the values of its options).
func searchArgs(env Env, args []Word, tool string) (func(string) bool, []Word) {
	all := func(string) bool { return true }
	opts, ops, dynOpt := searchWords(args, tool)
	grepLike := searchTool(tool) == "grep" || tool == "git grep"
	var pats []string
	judge := !dynOpt
	// git grep takes its dialect from grep.patternType and
	// grep.extendedRegexp as well, in any configuration file git reads:
	// its patterns are judged by ERE's (and PCRE's) special characters,
	// which hold BRE's (red team 11b, finding 6).
	fold, fixed, ere := false, false, !grepLike || tool == "git grep"
	smart := tool == "ag"
	explicit := false
	for _, o := range opts {
		switch o.name {
		case "-e", "--regexp":
			if o.has {
				pats, explicit = append(pats, o.val), true
			}
		case "-f", "--file":
			judge, explicit = false, true
		case "-v", "--invert-match", "-L", "--files-without-match", "--files", "--passthru", "--pre":
			judge = false
		case "-S", "--smart-case":
			smart = true
		case "-i", "--ignore-case", "-y":
			fold = true
		case "--case-sensitive":
			smart = false
		case "-F", "--fixed-strings", "-Q", "--literal":
			fixed = true
		case "--extended-regexp", "--perl-regexp":
			ere = true
		case "-s":
			if tool == "rg" {
				smart = false
			}
		case "-E", "-P":
			if grepLike {
				ere = true
			}
		}
	}
	context := false
	for _, o := range opts {
		switch o.name {
		case "-A", "-B", "-C", "--after-context", "--before-context", "--context", "--after", "--before":
			context = true
		}
	}
	roots := ops
	if !explicit && len(ops) > 0 {
		if ops[0].Dynamic {
			judge = false
		}
		pats, roots = append(pats, ops[0].Value), ops[1:]
	}
	if len(pats) == 0 || !judge {
		return all, roots
	}
	var res []*regexp.Regexp
	for _, p := range pats {
		src := p
		if !fixed && !literalPattern(p, ere) {
			// GNU grep's and Rust's regular expressions are not Go's ({,1}
			// is {0,1} to grep and text to Go; [[=A=]] is a class of
			// letters): a pattern that is not plain text is taken to print
			// every line of the secret files it reads (red team 10b, finding 6).
			return all, roots
		}
		switch {
		case fixed:
			src = regexp.QuoteMeta(p)
		case !ere:
			src = breToERE(p)
		}
		if !fixed && grepLike {
			src = gnuAnchors(src)
		}
		if fold || smart && strings.ToLower(p) == p {
			src = "(?i)" + src
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return all, roots
		}
		res = append(res, re)
	}
	return func(file string) bool {
		fi, err := env.FS.Lstat(env.realPath(file))
		if err != nil || fi.Size() > walkBudget {
			return true
		}
		data, err := env.readHead(env.realPath(file), int(fi.Size()))
		if err != nil || int64(len(data)) < fi.Size() {
			return true
		}
		lines := strings.Split(string(data), "\n")
		if !context && !isCredential(file) && !env.gitConfigSecret(file) && !env.configHoldsSecret(file) {
			lines = secretLines(data) // a key or token inside another file: only its own lines are the secret
		}
		for _, line := range lines {
			for _, re := range res {
				if re.MatchString(line) {
					return true
				}
			}
		}
		return false
	}, roots
}

// gnuAnchors writes GNU grep's anchors the way Go's regexp means them:
// \< and \> (word edges) as \b, \` and \' (start and end) as ^ and $.
// Go takes \< as a literal <, so '\<' would have looked like matching
// nothing while grep matches every word (the eighth red team read .env so).
func gnuAnchors(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '\\' || i+1 >= len(p) {
			b.WriteByte(p[i])
			continue
		}
		switch p[i+1] {
		case '<', '>':
			b.WriteString(`\b`)
		case '`':
			b.WriteString("^")
		case '\'':
			b.WriteString("$")
		default:
			b.WriteByte(p[i])
			b.WriteByte(p[i+1])
		}
		i++
	}
	return b.String()
}

// breToERE turns a POSIX basic regular expression into an extended one:
// \( \) \{ \} \| \+ \? are the operators, their bare forms literal.
func breToERE(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && strings.IndexByte("(){}|+?", p[i+1]) >= 0:
			b.WriteByte(p[i+1])
			i++
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case strings.IndexByte("(){}|+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// gitNoIndexHits: git diff --no-index A B prints the files it compares,
// folders whole (the ninth red team's git diff --no-index empty . printed
// .env), as diff -r does.
func gitNoIndexHits(g gitInfo, cwds cwdSet, env Env, network bool) []hit {
	if g.sub != "diff" {
		return nil
	}
	ops, opts := operands(g.args)
	if !hasLong(opts, "--no-index") {
		return nil
	}
	id := FloorCredentialRead
	if network {
		id = FloorCredentialExfil
	}
	for _, o := range ops {
		abs, ok := cwds.resolve(o)
		if !ok {
			return []hit{{id: id, detail: "git diff --no-index " + o.Raw + ": files known only when it runs, which may be credentials"}}
		}
		for _, a := range abs {
			if isCredential(a) {
				return []hit{{id: id, detail: "git diff --no-index prints " + a}}
			}
			if p, found := treeCredentials(env, a, true); found {
				return []hit{{id: id, detail: "git diff --no-index prints every file under " + a + ", " + p + " among them"}}
			}
		}
	}
	return nil
}

// literalPattern reports a search pattern with no character a regular
// expression gives a meaning to (BRE's \ . [ ] * ^ $, and ERE's + ? { } ( ) |
// too), whose matches Go's regexp finds exactly as grep does.
func literalPattern(p string, ere bool) bool {
	special := `\.[]*^$`
	if ere {
		special += "+?{}()|"
	}
	return !strings.ContainsAny(p, special)
}

// grepIncludes are the globs of grep's --include options when the first
// of its --include and --exclude options is an --include: GNU grep then
// leaves out every file no --include matches.
func grepIncludes(args []Word) []string {
	var out []string
	for i, a := range args {
		if a.Value == "--" {
			break
		}
		if a.Dynamic {
			continue
		}
		if len(out) == 0 && (strings.HasPrefix(a.Value, "--exclude=") || a.Value == "--exclude" ||
			strings.HasPrefix(a.Value, "--exclude-from")) {
			return nil // a file no option matches is searched unless the first of them is --include
		}
		if g, ok := strings.CutPrefix(a.Value, "--include="); ok {
			out = append(out, g)
		} else if a.Value == "--include" && i+1 < len(args) && !args[i+1].Dynamic {
			out = append(out, args[i+1].Value)
		}
	}
	return out
}
