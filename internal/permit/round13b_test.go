package permit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHistoryAndIndexContent runs git for real: a token committed in an
// ordinary file is found in the history, a staged key in the index, and
// the index's stat data tells an unchanged tracked file from a changed one.
func TestHistoryAndIndexContent(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=a"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", ".")
	write("settings.py", "API_KEY = \"ghp_16C7e42F292c6912E7710c838347Ae178B4a\"\n")
	write("README.md", "# x\n")
	git("add", "-A")
	git("commit", "-qm", "one")
	write("settings.py", "API_KEY = os.environ['API_KEY']\n")
	git("commit", "-qam", "two")
	env := Env{Workdir: dir, FS: OSFS{}}
	names, known := env.historySecretNames([]string{dir})
	if !known || len(names) != 1 || names[0] != filepath.Join(dir, "settings.py") {
		t.Fatalf("history secrets = %v, %v; want settings.py", names, known)
	}
	if f, known := env.stagedSecret(dir); !known || f != "" {
		t.Fatalf("staged secret = %q, %v; want none", f, known)
	}
	write("conf/server.txt", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n")
	git("add", "conf/server.txt")
	if f, known := env.stagedSecret(dir); !known || f != "conf/server.txt" {
		t.Fatalf("staged secret = %q, %v; want conf/server.txt", f, known)
	}
	idx, top, ok := env.trackedIndex(dir)
	if !ok || top != dir || len(idx) != 3 {
		t.Fatalf("index = %v, %q, %v", idx, top, ok)
	}
	// README.md was written before the index: unchanged (unless racy in
	// the same second, which counts as changed, the safe side).
	old := filepath.Join(dir, "README.md")
	past := mustStat(t, old).ModTime().Add(-10e9)
	os.Chtimes(old, past, past)
	git("add", "README.md") // refresh its stat data in the index
	idx, top, _ = env.trackedIndex(dir)
	if !env.unchanged(idx, top, old) {
		t.Errorf("README.md counts as changed")
	}
	write("README.md", "# changed, longer\n")
	if env.unchanged(idx, top, old) {
		t.Errorf("a changed README.md counts as unchanged")
	}
	for _, v := range []string{"3", "4"} {
		git("update-index", "--index-version", v)
		idx, _, ok := env.trackedIndex(dir)
		if !ok || len(idx) != 3 {
			t.Errorf("index version %s: %v, %v", v, idx, ok)
		}
		if _, has := idx["conf/server.txt"]; !has {
			t.Errorf("index version %s: no conf/server.txt in %v", v, idx)
		}
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// FuzzGitParsers: the index, patch and configuration readers take any bytes.
func FuzzGitParsers(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"), "diff --git a/x b/x\n+++ b/x\n+ghp_16C7e42F292c6912E7710c838347Ae178B4a\n")
	f.Add([]byte("[core]\n\thooksPath = \"a b\" ; c\n[alias]\n x = !sh y"), "+++ \"b/a\\tb\"\n+x\n")
	f.Fuzz(func(t *testing.T, data []byte, patch string) {
		dir := t.TempDir()
		p := filepath.Join(dir, "index")
		os.WriteFile(p, data, 0o644)
		env := Env{Workdir: dir, FS: OSFS{}}
		env.readIndex(p, 20)
		env.readIndex(p, 32)
		patchSecrets(patch)
		parseGitConfig(string(data))
		secretLines(data)
	})
}
