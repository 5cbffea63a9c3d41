package permit

import (
	"bytes"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// credentialDirs are directories whose every file is a secret (or lets one
// log in): keys, cloud and registry credentials.
var credentialDirs = []string{".ssh", ".aws", ".gnupg", ".azure", ".config/gcloud", ".password-store",
	".kube", ".docker", ".config/gh", ".terraform.d", ".oci", "secrets", ".secrets", ".envs"}

// dotlessCredentials are credential files' names without their dot, as
// copies get them (conf/npmrc.bak, netrc.old).
var dotlessCredentials = map[string]bool{"npmrc": true, "netrc": true, "pypirc": true, "pgpass": true,
	"git-credentials": true, "dockercfg": true, "s3cfg": true, "vault-token": true}

// credentialFiles are single files that hold secrets, wherever they are.
var credentialFiles = map[string]bool{".netrc": true, "_netrc": true, ".npmrc": true, ".pypirc": true,
	".git-credentials": true, ".htpasswd": true, ".vault-token": true, "credentials.json": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "id_ecdsa_sk": true, "id_ed25519_sk": true,
	".pgpass": true, ".my.cnf": true, ".bash_history": true, ".zsh_history": true, ".sh_history": true,
	".history": true, ".python_history": true, ".node_repl_history": true, ".psql_history": true,
	".mysql_history": true, ".sqlite_history": true, ".rediscli_history": true, ".lesshst": true, ".viminfo": true,
	"environ": true, ".git-credential-cache": true, "hosts.yml": false, ".s3cfg": true, ".boto": true,
	".terraformrc": true, "terraform.rc": true, "terraform.tfstate": true, "terraform.tfstate.backup": true,
	".envrc": true, "credentials": true, ".dockercfg": true, ".pgpass.conf": true, "service-account.json": true,
	"application_default_credentials.json": true, "kubeconfig": true, ".kubeconfig": true, "htpasswd": true, ".token": true, "auth.json": true, "oauth_creds.json": true, ".credentials.json": true,
	"credentials.db": true, "access_tokens.db": true, "google_accounts.json": true,
	"local.settings.json": true, "database.yml": true, "database.yaml": true, "wp-config.php": true, "sa.json": true,
	"secring.gpg": true, "secring.kbx": true,
	// Red team 8b: more env files and histories.
	".flaskenv": true, "fish_history": true, ".irb_history": true, ".pry_history": true, ".zhistory": true,
	".ash_history": true, ".rhistory": true, ".scala_history": true, ".guile_history": true, ".octave_hist": true,
	".postgres": true, ".django": true, "credentials.yml.enc": true,
	// Red team 22a, finding 9: ansible's vault password files.
	"vault_pass": true, ".vault_pass": true, "vault_pass.txt": true, ".vault_pass.txt": true, ".vault-password": true,
	"vault-password": true, "vault_password": true, ".vault_password": true}

// credentialNamed are families of credential files known by the shape of
// their name: an environment's appsettings.<Env>.json (.NET), Spring's
// application-<profile>.properties|yml for the profiles that hold real
// settings, every Terraform variables file (*.tfvars, *.auto.tfvars), a
// Google service account's key (*-sa.json, service-account*.json), an
// armoured private key by its name (private*.asc, *-private.asc).
func credentialNamed(base string) bool {
	stem, ext := strings.TrimSuffix(base, path.Ext(base)), path.Ext(base)
	switch {
	case strings.HasPrefix(base, "appsettings.") && ext == ".json" && stem != "appsettings":
		return true
	case strings.HasPrefix(base, "application-") && (ext == ".properties" || ext == ".yml" || ext == ".yaml"):
		return springSecretProfiles[strings.TrimPrefix(stem, "application-")]
	case strings.HasSuffix(base, ".tfvars") || strings.HasSuffix(base, ".tfvars.json"):
		return true
	case ext == ".json" && (strings.HasSuffix(stem, "-sa") || strings.HasSuffix(stem, "_sa") || strings.HasPrefix(stem, "service-account") || strings.HasPrefix(stem, "service_account")):
		return true
	case ext == ".asc" || ext == ".gpg":
		return strings.Contains(stem, "private") || strings.Contains(stem, "secret")
	}
	return false
}

// springSecretProfiles are Spring profiles whose files hold a real
// environment's settings (application-test.yml stays a test fixture).
var springSecretProfiles = setOf("local", "dev", "development", "prod", "production", "stage", "staging", "secret",
	"secrets", "private", "live", "uat", "preprod")

// secretWords mark a data file by its name as holding secrets (secrets.yaml,
// client_secret.json, token.txt, credentials.toml): a word of the name,
// with a data file's extension, so that token.go and docs/secrets.md stay
// ordinary files.
var secretWords = []string{"secret", "secrets", "token", "credential", "credentials", "password",
	"passwords", "apikey", "api_key", "api-key", "adminsdk", "service-account", "serviceaccount", "key",
	"prod", "production"}

// dataExts are the extensions of configuration and data files.
var dataExts = map[string]bool{".json": true, ".yaml": true, ".yml": true, ".toml": true, ".ini": true,
	".txt": true, ".conf": true, ".cfg": true, ".properties": true, ".env": true, ".xml": true, ".csv": true,
	".tfvars": true, ".hcl": true, ".plist": true, ".dat": true, ".asc": true}

// editorCopy strips what editors and backups add to a name (.env~,
// #.env#, .env.swp, id_rsa.bak), so a copy is judged as its original.
func editorCopy(base string) string {
	for {
		b := strings.TrimSuffix(strings.TrimPrefix(base, "#"), "#")
		b = strings.TrimSuffix(b, "~")
		for _, s := range []string{".swp", ".swo", ".swx", ".bak", ".orig", ".old", ".save", ".tmp", ".backup", ".copy"} {
			b = strings.TrimSuffix(b, s)
		}
		if b == base || b == "" {
			return base
		}
		base = b
	}
}

// secretName reports a data file whose name says it holds secrets.
func secretName(base string) bool {
	ext := path.Ext(base)
	if !dataExts[ext] || ext == base { // a bare word is a search pattern as often as a file
		return false
	}
	stem := strings.TrimSuffix(base, ext)
	words := strings.FieldsFunc(stem, func(r rune) bool { return r == '.' || r == '_' || r == '-' || r == ' ' })
	hasKey := false
	for _, w := range words {
		for _, s := range secretWords {
			switch {
			case w != s:
			case s == "key" || s == "keys":
				hasKey = true
			case s == "prod" || s == "production":
				if ext == ".properties" || ext == ".env" || ext == ".tfvars" {
					return true // application-prod.properties
				}
			default:
				return true
			}
		}
	}
	// gcp-key.json, my-keys.json: keys in a data file; key.txt alone too
	return hasKey && ext != ".txt" && ext != ".csv" || hasKey && len(words) == 1
}

// credentialSystemFiles are the system's own secrets.
var credentialSystemFiles = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/ssh_host_"}

// credentialSuffixes mark key and certificate stores.
var credentialSuffixes = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".kdbx"}

// envStages are the environments an env.STAGE file is named after.
var envStages = setOf("production", "prod", "local", "development", "dev", "staging", "stage", "live", "secret", "secrets", "test")

// envExamples are .env files meant to be shared.
var envExamples = map[string]bool{"example": true, "sample": true, "template": true, "dist": true, "defaults": true}

// isCredential reports whether the path (absolute, or as written) names a
// file that holds secrets: under ~/.ssh, ~/.aws..., a .env file, a private
// key. A directory that holds them counts too (cp -r ~/.ssh).
func isCredential(p string) bool {
	p = strings.TrimSuffix(p, "/")
	base := strings.ToLower(path.Base(p)) // .ENV is .env on a case-insensitive disk
	base = editorCopy(base)
	if credentialFiles[base] || secretName(base) || dotlessCredentials[base] || credentialNamed(base) {
		return true
	}
	if base == "settings-security.xml" || base == "settings.xml" && strings.Contains(p, "/.m2/") {
		return true // Maven's server passwords and master password (red team 16b, finding 7)
	}
	if base == "gradle.properties" && strings.Contains(p, "/.gradle/") {
		return true // ~/.gradle/gradle.properties: signing and repository passwords (the project's own is judged by content)
	}
	for _, f := range credentialSystemFiles {
		if strings.HasPrefix(p, f) {
			return true
		}
	}
	for _, env := range []string{".env", ".dev.vars"} { // .dev.vars: Cloudflare wrangler's .env
		if base == env || strings.HasPrefix(base, env+".") && !envExamples[strings.TrimPrefix(base, env+".")] {
			return true
		}
		if strings.HasPrefix(base, env+".") {
			return false
		}
	}
	// docker.env, app.env (not example.env), env.production, env.local
	if stem, ok := strings.CutSuffix(base, ".env"); ok && stem != "" && !envExamples[stem] {
		return true
	}
	if stage, ok := strings.CutPrefix(base, "env."); ok && envStages[stage] {
		return true
	}
	if strings.HasSuffix(base, ".pub") {
		return false
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	slashed := "/" + strings.TrimPrefix(p, "/") + "/"
	for _, d := range credentialDirs {
		if strings.Contains(slashed, "/"+d+"/") {
			return true
		}
	}
	return false
}

// credentialIn reports a credential named by a shell word: the word
// itself, or what follows @ or = in it (curl -d @~/.aws/credentials,
// --upload-file=~/.ssh/id_rsa), resolved from every possible directory.
func credentialIn(w Word, cwds cwdSet) (string, bool) {
	return credentialInRead(w, cwds, false)
}

// credentialInRead is credentialIn; with read set (the command prints the
// files it names) a file is also looked at whole for tokens (readSecret).
func credentialInRead(w Word, cwds cwdSet, read bool) (string, bool) {
	cands := []string{w.Value}
	if i := strings.LastIndexByte(w.Value, '@'); i >= 0 {
		cands = append(cands, w.Value[i+1:])
	}
	if i := strings.IndexByte(w.Value, '='); i >= 0 {
		cands = append(cands, strings.TrimPrefix(w.Value[i+1:], "@"))
	}
	if v := w.Value; len(v) > 2 && v[0] == '-' && v[1] != '-' {
		cands = append(cands, v[2:]) // -F/root/.codex/auth.json: a value glued to its option
	}
	if i := strings.IndexByte(w.Value, ':'); i >= 0 && !strings.Contains(w.Value, "://") {
		cands = append(cands, w.Value[i+1:]) // git show REV:.env, scp host:~/.ssh/id_rsa
	}
	if p, ok := globCredential(w, cwds, read); ok {
		return p, true
	}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if isCredential(c) {
			return c, true
		}
		cw := Word{Value: c, Dynamic: w.Dynamic, Glob: w.Glob, Tilde: strings.HasPrefix(c, "~")}
		if abs, ok := cwds.resolve(cw); ok {
			for _, a := range abs {
				if read {
					if why, ok := cwds.env.readSecret(a); ok {
						return a + why, true
					}
				} else if cwds.env.secretFile(a) {
					return a, true
				}
			}
		}
	}
	return "", false
}

// configSecret finds a credential written into a git configuration: a
// URL with user:password@ or a long token@, an extraheader (a bearer
// token), a password or token key.
var configSecret = regexp.MustCompile(`(?im)://[^/\s@:]*:[^/\s@]+@|://[^/\s@:]{16,}@|extraheader\s*=|^\s*(password|token|oauthtoken)\s*=`)

// secretFile reports a file that is a credential by its name, a git
// configuration holding one (a clone's token in its remote URL), a
// configuration file with a key or token written into it, or any file
// whose start holds a private key.
func (e Env) secretFile(abs string) bool {
	return e.secretFileScan(abs, keyScan)
}

// secretFileScan is secretFile looking at the first scan bytes of a file
// for a private key (less in a walk through a whole tree).
func (e Env) secretFileScan(abs string, scan int) bool {
	return isCredential(abs) || e.gitConfigSecret(abs) || e.configHoldsSecret(abs) || e.holdsPrivateKey(abs, scan)
}

// readScan bounds how much of a file the Read tool or a command that
// prints files (cat, head, grep …) names is looked at for a private key
// or a token of a well-known shape; a larger file is asked for (too large
// to look through), so padding cannot hide a key past the bound.
const readScan = 16 << 20

// readSecret reports a file that is a credential when its content is
// printed: secretFile, a token's shape anywhere in its first readScan
// bytes, or a file larger than that. why says which.
func (e Env) readSecret(abs string) (why string, ok bool) {
	return e.heldSecret(abs, true)
}

// editSecret reports a file found to hold a credential, by name or
// content, which Edit and Write would change as they would .env (red team
// 16b, finding 8: Edit(db.ini) was allowed while cat db.ini asked). A
// hard link and a large file are not reasons here: writing them is judged
// on its own (hardLinkHit), and a large one is looked at up to readScan.
func (e Env) editSecret(abs string) (why string, ok bool) {
	return e.heldSecret(abs, false)
}

// heldSecret is readSecret; strict also counts a hard link (another
// name's content) and a file too large to look through.
func (e Env) heldSecret(abs string, strict bool) (why string, ok bool) {
	if e.secretFile(abs) {
		return "", true
	}
	if e.FS == nil {
		return "", false
	}
	real := e.realPath(abs)
	fi, err := e.FS.Lstat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	if strict && multiLinked(fi) && !inPackageDir(real) {
		return hardLinkRead, true
	}
	if strict && fi.Size() > readScan {
		return " (" + itoa(int(fi.Size()>>20)) + " MiB: too large to look through for keys and tokens)", true
	}
	body, err := e.readHead(real, readScan)
	if err != nil {
		return "", false
	}
	return contentSecret(body)
}

// privateKey is the armour of a private key: PEM (RSA, EC, DSA, PKCS#8,
// encrypted), OpenSSH, PGP, PuTTY.
var privateKey = regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d`)

// keyScan and keyScanWalk bound how much of a file is looked at for a
// private key: a file named on the command line, and each file of a
// folder walked whole.
const (
	keyScan     = 64 << 10
	keyScanWalk = 8 << 10
)

// sourceExts are the endings of source files: a walk through a whole
// tree does not open them to look for keys (a test key in a .go file is
// found when that file is read by name).
var sourceExts = setOf(".go", ".py", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".rs", ".c", ".h", ".cc", ".cpp",
	".hpp", ".java", ".kt", ".rb", ".php", ".cs", ".swift", ".m", ".scala", ".md", ".html", ".css", ".scss", ".s",
	".svg", ".png", ".jpg", ".jpeg", ".gif", ".ico", ".woff", ".woff2", ".ttf", ".pdf", ".zip", ".gz", ".a", ".o",
	".so", ".wasm", ".lock", ".sum", ".mod")

// holdsPrivateKey reports a file whose first scan bytes hold a private
// key, whatever its name (a deploy key committed as conf/deploy_key).
func (e Env) holdsPrivateKey(abs string, scan int) bool {
	if e.FS == nil || scan == keyScanWalk && sourceExts[strings.ToLower(path.Ext(abs))] {
		return false
	}
	body, err := e.readHead(e.realPath(abs), scan)
	return err == nil && hasPrivateKey(body)
}

// hasPrivateKey reports the armour of a private key in data (found by a
// plain search first: the expression alone is slow on every file of a tree).
func hasPrivateKey(data []byte) bool {
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte("PRIVATE KEY"))
		if i < 0 {
			break
		}
		i += off
		if privateKey.Match(data[max(0, i-64):min(len(data), i+32)]) {
			return true
		}
		off = i + 1
	}
	return bytes.Contains(data, []byte("PuTTY-User-Key-File-"))
}

// privateKeyLines returns the lines of a private key's armour in lines
// (BEGIN to END), the only lines of such a file that are a secret.
func privateKeyLines(lines []string) []string {
	var out []string
	in := false
	for _, l := range lines {
		switch {
		case privateKey.MatchString(l) || strings.Contains(l, "PuTTY-User-Key-File-"):
			in = true
			if loc := privateKey.FindStringIndex(l); loc != nil && strings.Contains(l[loc[1]:], "-----END ") {
				out = append(out, l) // the whole key on one line (a string in source code)
				in = false
				continue
			}
		case in && (strings.Contains(l, "-----END ") || strings.HasPrefix(l, "Private-MAC:")):
			out = append(out, l)
			in = false
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	return out
}

// configExts are the endings of files that configure tools and services:
// where tokens get pasted (.mcp.json's env, .yarnrc.yml's npmAuthToken,
// pip.conf's index-url, terraform.tfvars, gradle.properties).
var configExts = []string{".json", ".yml", ".yaml", ".toml", ".conf", ".cfg", ".ini", ".properties",
	".xml", ".tfvars", ".dockerconfigjson", ".config"}

// configSecretValue is a key or token in a configuration: a well-known
// token's shape, a URL with a password, or a secret-named key with a
// literal value (not a ${VAR} or <placeholder>).
var configSecretValue = regexp.MustCompile(`(?i)` + secretShapeExpr +
	`|://[^/\s@:"']*:[^/\s@"'$]+@` +
	`|(password|passwd|secret|token|api[_-]?key|apikey|auth|credentials?|private[_-]?key)[A-Za-z_]*["']?\s*[:=]\s*["']?[^\s"'$<{][^\s"']{7,}`)

// maxConfigScan bounds how much of a configuration file is looked at.
const maxConfigScan = 256 << 10

// configHoldsSecret reports a configuration file (by its ending) whose
// first maxConfigScan bytes hold a key or token.
func (e Env) configHoldsSecret(abs string) bool {
	if e.FS == nil || !isConfigName(path.Base(abs)) {
		return false
	}
	body, err := e.FS.ReadFile(e.realPath(abs))
	if err != nil {
		return false
	}
	return configSecretValue.Match(body[:min(len(body), maxConfigScan)])
}

func isConfigName(base string) bool {
	low := strings.ToLower(base)
	if strings.HasPrefix(low, ".") && strings.HasSuffix(low, "rc") { // .yarnrc, .bowerrc
		return true
	}
	for _, x := range configExts {
		if strings.HasSuffix(low, x) {
			return true
		}
	}
	return false
}

// gitConfigSecret reports a git configuration file that holds a credential.
func (e Env) gitConfigSecret(abs string) bool {
	if e.FS == nil || !strings.EqualFold(path.Base(abs), "config") || !underDotGit(abs) && !e.isRepoDirSafe(path.Dir(abs)) {
		return false
	}
	body, err := e.FS.ReadFile(abs)
	return err == nil && configSecret.Match(body)
}

func (e Env) isRepoDirSafe(d string) bool { return e.FS != nil && e.isRepoDir(d) }

// repoConfig returns the configuration file of the repository git finds
// from dir, walking up inside the working directory.
func (e Env) repoConfig(dir string) (string, bool) {
	_, cfg, ok := e.repoAt(dir)
	return cfg, ok
}

// repoAt returns the work tree (empty for a bare repository) and the
// configuration file of the repository git finds from dir, walking up
// inside the working directory.
func (e Env) repoAt(dir string) (top, cfg string, ok bool) {
	if e.FS == nil {
		return "", "", false
	}
	for d := dir; e.inside(d); d = path.Dir(d) {
		dot := path.Join(d, ".git")
		if fi, err := e.FS.Lstat(dot); err == nil {
			if fi.IsDir() {
				return d, path.Join(dot, "config"), true
			}
			body, err := e.FS.ReadFile(dot) // a worktree's or submodule's "gitdir: X"
			if g, ok := strings.CutPrefix(strings.TrimSpace(string(body)), "gitdir: "); err == nil && ok {
				if !path.IsAbs(g) {
					g = path.Join(d, g)
				}
				return d, path.Join(path.Clean(g), "config"), true
			}
			return "", "", false
		}
		if e.isRepoDir(d) {
			return "", path.Join(d, "config"), true
		}
		if d == e.Workdir || d == "/" {
			break
		}
	}
	return "", "", false
}

// gitSecretHits: git commands that print the remote URLs or the whole
// configuration, when the repository's configuration holds a credential.
func gitSecretHits(g gitInfo, cwds cwdSet, env Env) []hit {
	shows := false
	_, opts := operands(g.args)
	switch g.sub {
	case "remote":
		shows = len(g.args) > 0
	case "ls-remote":
		shows = hasLong(opts, "--get-url")
	case "config":
		for _, a := range g.args {
			l := strings.ToLower(a.Value)
			switch {
			case l == "-l" || l == "--list" || l == "list" || l == "--get-regexp" || l == "get-regexp" || l == "--get-urlmatch",
				!strings.HasPrefix(l, "-") && (strings.Contains(l, "url") || strings.Contains(l, "extraheader") ||
					strings.Contains(l, "credential") || strings.Contains(l, "password") || strings.Contains(l, "token") || strings.Contains(l, ".*")):
				shows = true
			}
		}
	}
	if !shows {
		return nil
	}
	for _, d := range cwds.dirs {
		if cfg, ok := env.repoConfig(d); ok && env.gitConfigSecret(cfg) {
			return []hit{{id: FloorCredentialRead, detail: "git " + g.sub + " prints " + cfg + ", which holds a credential (a token in a remote URL or a header)"}}
		}
	}
	// the environment's own settings: a CI's extraheader in GIT_CONFIG_VALUE_0
	// (red team 14b, finding 10)
	if env.FS != nil {
		switch why, found, known := env.gitEnvConfigSecret(); {
		case found:
			return []hit{{id: FloorCredentialRead, detail: "git " + g.sub + " prints what " + why}}
		case !known:
			return []hit{{id: FloorCredentialRead, detail: "git " + g.sub + " prints settings the agent's environment may give git (GIT_CONFIG_*), which is not known here"}}
		}
	}
	// git reads the user's and the system's files too, and rewrites remote
	// URLs with their url.<base>.insteadOf: a token there is printed by git
	// config --get http.extraheader and git remote -v (red team 11b, finding 7).
	for _, cfg := range userGitConfigs(env) {
		if body, err := readFS(env, cfg); err == nil && configSecret.Match(body) {
			return []hit{{id: FloorCredentialRead, detail: "git " + g.sub + " prints what " + cfg + " sets, which holds a credential (a token in a URL, an insteadOf rewrite or a header)"}}
		}
	}
	return nil
}

// readFS reads a file through the policy's FS (an error without one).
func readFS(env Env, abs string) ([]byte, error) {
	if env.FS == nil {
		return nil, fs.ErrNotExist
	}
	return env.FS.ReadFile(abs)
}

// userGitConfigs are the configuration files git reads besides the
// repository's: global (~/.gitconfig, ~/.config/git/config) and system.
func userGitConfigs(env Env) []string {
	out := []string{"/etc/gitconfig"}
	if env.Home != "" {
		out = append(out, env.Home+"/.gitconfig", env.Home+"/.config/git/config")
	}
	return out
}

// gitStageHits: git add --force stages files git ignores, and git stash
// --all or --include-untracked stores them: a credential among them (.env
// is ignored, not safe) is then printed by any diff or show.
func gitStageHits(g gitInfo, cwds cwdSet, env Env) []hit {
	ops, opts := operands(g.args)
	var roots []Word
	by := ""
	switch g.sub {
	case "add":
		if hasShort(opts, "f") || hasLong(opts, "--force") {
			roots, by = ops, "git add --force"
			if len(roots) == 0 && (hasShort(opts, "A") || hasLong(opts, "--all", "--no-ignore-removal")) {
				roots = []Word{{Raw: ".", Value: "."}} // git add -Af: the whole tree, ignored files too
			}
			if hasLong(opts, "--pathspec-from-file") {
				return []hit{{id: FloorCredentialRead, detail: "git add --force --pathspec-from-file stages files a list names, known only when it runs, which may be credentials git ignores"}}
			}
		}
	case "stash":
		verb := "push"
		if len(ops) > 0 {
			verb = ops[0].Value
			ops = ops[1:]
		}
		if (verb == "push" || verb == "save") && (hasShort(opts, "au") || hasLong(opts, "--all", "--include-untracked")) {
			roots, by = ops, "git stash --all"
			if len(roots) == 0 {
				roots = []Word{{Raw: ".", Value: "."}}
			}
		}
	}
	for _, r := range roots {
		abs, ok := cwds.resolve(r)
		if !ok || gitPathspecPattern(r.Value) {
			return []hit{{id: FloorCredentialRead, detail: by + " " + r.Raw + ": files known only when it runs, which may be credentials git ignores"}}
		}
		for _, a := range abs {
			if isCredential(a) {
				return []hit{{id: FloorCredentialRead, detail: by + " stages " + a + ", a credential: every diff and show then prints it"}}
			}
			if f, found := treeCredentials(env, a, true); found {
				return []hit{{id: FloorCredentialRead, detail: by + " stages the files under " + a + ", " + f + " among them: every diff and show then prints it"}}
			}
		}
	}
	return nil
}
