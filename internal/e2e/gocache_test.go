package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// Your Go module and build caches are read-only to agents: code an agent
// wrote into the module cache ran at your next go run (red team 16a,
// finding 7). An agent's go builds all the same, with caches of its own,
// and gets a module you downloaded from your cache, offline; its GOFLAGS
// is kept, -modcacherw added (its module cache is its own to remove).
func TestAgentGoBuildsWithCachesOfItsOwn(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	home := filepath.Join(tm.dir, "home")
	modCache := filepath.Join(tm.dir, "gomod")
	buildCache := filepath.Join(tm.dir, "gocache")
	// The human downloaded example.com/lib v1.0.0: its zip in the
	// download cache, its files extracted (read-only, as go leaves them).
	lib := module.Version{Path: "example.com/lib", Version: "v1.0.0"}
	src := filepath.Join(tm.dir, "libsrc")
	files := map[string]string{"go.mod": "module example.com/lib\n\ngo 1.21\n", "lib.go": "package lib\n\nfunc V() int { return 0 }\n"}
	extracted := filepath.Join(modCache, "example.com", "lib@v1.0.0")
	download := filepath.Join(modCache, "cache", "download", "example.com", "lib", "@v")
	for _, d := range []string{src, extracted, download, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		for _, d := range []string{src, extracted} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o444); err != nil {
				t.Fatal(err)
			}
		}
	}
	var zip bytes.Buffer
	if err := modzip.CreateFromDir(&zip, lib, src); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"list": []byte("v1.0.0\n"), "v1.0.0.info": []byte(`{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`),
		"v1.0.0.mod": []byte(files["go.mod"]), "v1.0.0.zip": zip.Bytes()} {
		if err := os.WriteFile(filepath.Join(download, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	app := filepath.Join(tm.dir, "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"go.mod":  "module app\n\ngo 1.21\n\nrequire example.com/lib v1.0.0\n",
		"main.go": "package main\n\nimport (\n\t\"os\"\n\n\t\"example.com/lib\"\n)\n\nfunc main() { os.Exit(lib.V()) }\n",
	} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("GOPATH", "")
	t.Setenv("GOENV", "off")
	t.Setenv("GOMODCACHE", modCache)
	t.Setenv("GOCACHE", buildCache)
	t.Setenv("GOFLAGS", "")
	out := filepath.Join(tm.dir, "dev.out")
	script := `exec > "$OUT" 2>&1
did() { if sh -c "$1" >>"$OUT.log" 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1"; }
cd "$APP"
did "go build -o app . && ./app"
did "chmod u+w $MODS/example.com/lib@v1.0.0 $MODS/example.com/lib@v1.0.0/lib.go; echo 'func init() {}' >> $MODS/example.com/lib@v1.0.0/lib.go"
did "echo x > $BUILDS/planted"
did "test \"\$(go env GOMODCACHE)\" != $MODS && test \"\$(go env GOCACHE)\" != $BUILDS"
did "test \"\$(go env GOFLAGS)\" = \"-mod=mod -modcacherw\""
echo done; exec sleep 600`
	// GOPROXY=off: what the agent gets comes from your cache, offline.
	tm.extra = "    env: {OUT: " + out + ", APP: " + app + ", MODS: " + modCache + ", BUILDS: " + buildCache +
		", GOPROXY: \"off\", GOSUMDB: \"off\", GOFLAGS: \"-mod=mod\", GOTOOLCHAIN: local}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 3*time.Minute, "the agent's attempts", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "done")
	}, c.out.String)
	b, _ := os.ReadFile(out)
	log, _ := os.ReadFile(out + ".log")
	want := []string{"DID", "FAILED", "FAILED", "DID", "DID"}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w+": ") {
			t.Errorf("attempt %d, want %s:\n%s\n%s", i+1, w, b, log)
			break
		}
	}
	if got, _ := os.ReadFile(filepath.Join(extracted, "lib.go")); string(got) != files["lib.go"] {
		t.Errorf("your module cache's lib.go: %q", got)
	}
}

// Another agent's Go caches are read-only to an agent, its own writable: a
// build cache's entries are trusted as built, so writing another's made
// its go test run the writer's code (red team 21b, finding 4).
func TestAgentCannotWriteAnotherAgentsGoCache(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	home := filepath.Join(tm.dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	out := filepath.Join(tm.dir, "evil.out")
	evil := `exec > "$OUT" 2>&1
own=$(dirname "$GOCACHE"); victim="${own%-evil}-dev"
n=0; until [ -d "$victim/build" ] || [ $n -ge 400 ]; do sleep 0.05; n=$((n+1)); done
if sh -c "echo x > $victim/build/planted" 2>/dev/null; then echo "BREACH: build"; else echo "held: build"; fi
if sh -c "mkdir -p $victim/mod/evil" 2>/dev/null; then echo "BREACH: mod"; else echo "held: mod"; fi
if sh -c "mkdir $(dirname "$own")/new-dev" 2>/dev/null; then echo "BREACH: new"; else echo "held: new"; fi
if sh -c "echo x > $GOCACHE/mine" 2>/dev/null; then echo "own: build"; fi
echo checked; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"sh", "-c", "exec sleep 600"}},
		{name: "evil", command: []string{"sh", "-c", evil}}})
	c := tm.start()
	defer c.stop()
	allHeld(t, c, out, "evil", 3, "own: build")
}
