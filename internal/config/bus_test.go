package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A NATS URL with a user, password or token in the team file, which every
// agent can read, is refused; one without is taken, and relative
// credential files are made absolute (red team 9a, finding 9).
func TestBusURLWithASecretIsRefused(t *testing.T) {
	for _, url := range []string{"nats://s3cret@host:4222", "nats://user:pass@host:4222", "nats://a:4222, nats://tok@b:4222"} {
		p := writeTeam(t, "bus:\n  nats: \""+url+"\"\nagents:\n  - name: dev\n    command: [cat]\n")
		_, err := LoadTeam(p)
		if err == nil || !strings.Contains(err.Error(), "bus.creds") {
			t.Errorf("%s: %v", url, err)
		}
	}
	p := writeTeam(t, "bus:\n  nats: nats://host:4222\n  creds: nats/team.creds\nagents:\n  - name: dev\n    command: [cat]\n")
	team, err := LoadTeam(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(team.Bus.Creds, "/team.creds") || !strings.HasPrefix(team.Bus.Creds, "/") {
		t.Errorf("creds %q", team.Bus.Creds)
	}
}

// A secret file is hidden from agents by its folder, so that folder must
// hold nothing agents need: the team file, an agent's folder, a
// sub-folder, a program. One of its own passes, links followed (red team
// 11a, finding 5).
func TestSecretInAFolderAgentsNeedIsRefused(t *testing.T) {
	mk := func(t *testing.T, path string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, bus string
		setup     func(t *testing.T, dir string)
		want      string // "" when taken
	}{
		{"beside the team file", "  creds: console.creds\n", func(t *testing.T, dir string) { mk(t, filepath.Join(dir, "console.creds"), 0o600) }, "holds team.yaml"},
		{"tls key beside the team file", "  tls: {cert: c.pem, key: c.key}\n", func(t *testing.T, dir string) { mk(t, filepath.Join(dir, "c.key"), 0o600) }, "bus.tls.key"},
		{"a folder of its own", "  creds: nats/console.creds\n  tls: {ca: nats/ca.pem, cert: nats/c.pem, key: nats/c.key}\n", func(t *testing.T, dir string) {
			for _, f := range []string{"console.creds", "ca.pem", "c.pem", "c.key", ".console.creds.swp"} {
				mk(t, filepath.Join(dir, "nats", f), 0o600)
			}
		}, ""},
		{"not there yet", "  creds: nats/console.creds\n", func(t *testing.T, dir string) {}, ""},
		{"with a sub-folder", "  creds: nats/console.creds\n", func(t *testing.T, dir string) {
			mk(t, filepath.Join(dir, "nats", "console.creds"), 0o600)
			mk(t, filepath.Join(dir, "nats", "src", "main.go"), 0o600)
		}, "holds the folder src"},
		{"with a program", "  creds: nats/console.creds\n", func(t *testing.T, dir string) {
			mk(t, filepath.Join(dir, "nats", "console.creds"), 0o600)
			mk(t, filepath.Join(dir, "nats", "teamlead"), 0o700)
		}, "holds the program teamlead"},
		{"the agent's folder", "  creds: work/console.creds\n", func(t *testing.T, dir string) { mk(t, filepath.Join(dir, "work", "console.creds"), 0o600) }, "working folder of agent dev"},
		{"a link from the team file's folder", "  creds: console.creds\n", func(t *testing.T, dir string) {
			mk(t, filepath.Join(dir, "nats", "real.creds"), 0o600)
			if err := os.Symlink(filepath.Join(dir, "nats", "real.creds"), filepath.Join(dir, "console.creds")); err != nil {
				t.Fatal(err)
			}
		}, "holds team.yaml"},
		{"a link into the team file's folder", "  creds: nats/console.creds\n", func(t *testing.T, dir string) {
			mk(t, filepath.Join(dir, "real.creds"), 0o600)
			if err := os.MkdirAll(filepath.Join(dir, "nats"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(dir, "real.creds"), filepath.Join(dir, "nats", "console.creds")); err != nil {
				t.Fatal(err)
			}
		}, "holds team.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeTeam(t, "bus:\n  nats: nats://host:4222\n"+c.bus+"agents:\n  - name: dev\n    dir: work\n    command: [cat]\n")
			dir := filepath.Dir(p)
			if err := os.MkdirAll(filepath.Join(dir, "work"), 0o700); err != nil {
				t.Fatal(err)
			}
			c.setup(t, dir)
			_, err := LoadTeam(p)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "a folder of its own")):
				t.Fatalf("want an error with %q, got %v", c.want, err)
			}
		})
	}
}
