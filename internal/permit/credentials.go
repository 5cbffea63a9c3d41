package permit

import (
	"path"
	"strings"
)

// credentialDirs are directories whose every file is a secret (or lets one
// log in): keys, cloud and registry credentials.
var credentialDirs = []string{".ssh", ".aws", ".gnupg", ".azure", ".config/gcloud", ".password-store",
	".kube", ".docker", ".config/gh", ".terraform.d", ".oci"}

// credentialFiles are single files that hold secrets, wherever they are.
var credentialFiles = map[string]bool{".netrc": true, "_netrc": true, ".npmrc": true, ".pypirc": true,
	".git-credentials": true, ".htpasswd": true, ".vault-token": true, "credentials.json": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "id_ecdsa_sk": true, "id_ed25519_sk": true,
	".pgpass": true, ".my.cnf": true, ".bash_history": true, ".zsh_history": true, ".sh_history": true,
	".history": true, ".python_history": true, ".node_repl_history": true, ".psql_history": true,
	".mysql_history": true, ".sqlite_history": true, ".rediscli_history": true, ".lesshst": true, ".viminfo": true,
	"environ": true, ".git-credential-cache": true, "hosts.yml": false}

// credentialSystemFiles are the system's own secrets.
var credentialSystemFiles = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/ssh_host_"}

// credentialSuffixes mark key and certificate stores.
var credentialSuffixes = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".kdbx"}

// envExamples are .env files meant to be shared.
var envExamples = map[string]bool{"example": true, "sample": true, "template": true, "dist": true, "defaults": true}

// isCredential reports whether the path (absolute, or as written) names a
// file that holds secrets: under ~/.ssh, ~/.aws..., a .env file, a private
// key. A directory that holds them counts too (cp -r ~/.ssh).
func isCredential(p string) bool {
	p = strings.TrimSuffix(p, "/")
	base := strings.ToLower(path.Base(p)) // .ENV is .env on a case-insensitive disk
	if credentialFiles[base] {
		return true
	}
	for _, f := range credentialSystemFiles {
		if strings.HasPrefix(p, f) {
			return true
		}
	}
	if base == ".env" || strings.HasPrefix(base, ".env.") && !envExamples[strings.TrimPrefix(base, ".env.")] {
		return true
	}
	if strings.HasPrefix(base, ".env.") || strings.HasSuffix(base, ".pub") {
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
	cands := []string{w.Value}
	if i := strings.LastIndexByte(w.Value, '@'); i >= 0 {
		cands = append(cands, w.Value[i+1:])
	}
	if i := strings.IndexByte(w.Value, '='); i >= 0 {
		cands = append(cands, strings.TrimPrefix(w.Value[i+1:], "@"))
	}
	if i := strings.IndexByte(w.Value, ':'); i >= 0 && !strings.Contains(w.Value, "://") {
		cands = append(cands, w.Value[i+1:]) // git show REV:.env, scp host:~/.ssh/id_rsa
	}
	if p, ok := globCredential(w, cwds); ok {
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
				if isCredential(a) {
					return a, true
				}
			}
		}
	}
	return "", false
}
