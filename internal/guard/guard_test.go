package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/store"
)

type setup struct {
	strict bool // another team's console has run on the machine
	t      *testing.T
	dir    string
	state  string
	files  []string
}

func newSetup(t *testing.T) *setup {
	dir := t.TempDir()
	s := &setup{t: t, dir: dir, state: filepath.Join(dir, "state")}
	for _, name := range []string{"team.yaml", "permissions.yaml", "answerers.yaml"} {
		s.files = append(s.files, filepath.Join(dir, name))
	}
	s.write("team.yaml", "agents: []\n")
	s.write("permissions.yaml", "default: ask\n")
	return s
}

func (s *setup) write(name, body string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(body), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// console opens the store and the guard as a starting console does.
func (s *setup) console() (*store.Store, *Guard, []string) {
	s.t.Helper()
	st, err := store.Open(s.state, store.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	g, bad, err := Open(st, s.files, s.strict)
	if err != nil {
		s.t.Fatal(err)
	}
	return st, g, bad
}

// TestChangeWhileAgentsRunWaitsForTheHuman: a file changed while a
// console ran stops the next start until the human accepts it; a change
// made while no console ran is the human's and passes.
func TestChangeWhileAgentsRunWaitsForTheHuman(t *testing.T) {
	s := newSetup(t)
	st, g, bad := s.console()
	if len(bad) != 0 || g == nil {
		t.Fatalf("the first start needs nothing: %v", bad)
	}
	s.write("permissions.yaml", "default: ask\nrules:\n  - match: Bash(curl:*)\n    decide: allow\n")
	s.write("answerers.yaml", "routes: []\n") // a file created while agents ran counts too
	if got := g.look(); strings.Join(got, " ") != s.files[2]+" "+s.files[1] && strings.Join(got, " ") != s.files[1]+" "+s.files[2] {
		t.Fatalf("seen changed: %v", got)
	}
	if got := g.look(); len(got) != 0 {
		t.Fatalf("a change is told once: %v", got)
	}
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, g, bad = s.console()
	if g != nil || len(bad) != 2 {
		t.Fatalf("the next start must wait for the human: %v", bad)
	}
	state, _, err := Load(st)
	if err != nil {
		t.Fatal(err)
	}
	now := Take(s.files)
	if d := state.Diff(s.files[1], now[s.files[1]]); !strings.Contains(d, "+  - match: Bash(curl:*)") || !strings.Contains(d, "(accepted)") {
		t.Fatalf("diff:\n%s", d)
	}
	state.Accept(now, s.files[1], s.files[2])
	if err := Save(st, state); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, g, bad = s.console()
	if g == nil || len(bad) != 0 {
		t.Fatalf("accepted, the start goes on: %v", bad)
	}
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	s.write("team.yaml", "agents: []\n# edited by the human between runs\n")
	st, g, bad = s.console()
	if g == nil || len(bad) != 0 {
		t.Fatalf("a change made while no console ran is the human's: %v", bad)
	}
	g.Close()
	st.Close()
}

// TestKilledConsoleLeavesEveryDifferenceToLookAt: a console that never
// closed its guard (SIGKILL) may have missed a change: every file that
// differs from what it started with waits for the human; one that was put
// back does not.
func TestKilledConsoleLeavesEveryDifferenceToLookAt(t *testing.T) {
	s := newSetup(t)
	st, _, _ := s.console() // never closed: killed
	st.Close()
	s.write("team.yaml", "agents: [x]\n")
	st, g, bad := s.console()
	if g != nil || len(bad) != 1 || bad[0] != s.files[0] {
		t.Fatalf("want team.yaml to wait, got %v", bad)
	}
	st.Close()
	s.write("team.yaml", "agents: []\n")
	st, g, bad = s.console()
	if g == nil || len(bad) != 0 {
		t.Fatalf("back as it was: %v", bad)
	}
	g.Close()
	st.Close()
}

// TestConsoleWriteIsTheHumans: an approve-always rule the console adds is
// accepted with the file; but on a file someone else changed, the console
// writes nothing and says so.
func TestConsoleWriteIsTheHumans(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	defer st.Close()
	policy := s.files[1]
	want := "default: ask\n# rule added by the console\n"
	out, err := g.Write(policy, func(current []byte) ([]byte, error) { return []byte(want), nil })
	if err != nil || string(out) != want {
		t.Fatalf("write: %q, %v", out, err)
	}
	if b, _ := os.ReadFile(policy); string(b) != want {
		t.Fatalf("the file holds %q", b)
	}
	if got := g.look(); len(got) != 0 {
		t.Fatalf("the console's own write is not a change behind its back: %v", got)
	}
	s.write("permissions.yaml", "default: ask\nrules: [{match: Bash, decide: allow}]\n")
	wrote := false
	_, err = g.Write(policy, func([]byte) ([]byte, error) { wrote = true; return nil, nil })
	if !errors.Is(err, ErrChanged) || wrote {
		t.Fatalf("write over someone else's change: err %v, wrote %v", err, wrote)
	}
	if changed, err := g.Close(); err != nil || len(changed) != 0 {
		t.Fatalf("close: %v %v (the change was already recorded)", changed, err)
	}
	state, _, _ := Load(st)
	if _, ok := state.Changed[policy]; !ok {
		t.Fatal("the change under the refused write is not recorded")
	}
}

// TestRunTellsAChange: the watch loop reports a change on its own.
func TestRunTellsAChange(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan string, 4)
	go g.Run(ctx, 10*time.Millisecond, func(p string) { seen <- p })
	s.write("team.yaml", "agents: [evil]\n")
	select {
	case p := <-seen:
		if p != s.files[0] {
			t.Fatalf("told %s", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no change told in 20 s")
	}
}

// TestFifoIsNotWaitedOn: a FIFO an agent put in a file's place is read as
// not a regular file, at once.
func TestFifoIsNotWaitedOn(t *testing.T) {
	s := newSetup(t)
	if err := syscall.Mkfifo(s.files[2], 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan File, 1)
	go func() { done <- Take(s.files)[s.files[2]] }()
	select {
	case f := <-done:
		if f.Err == "" || f.Missing {
			t.Fatalf("a FIFO read as %+v", f)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still reading a FIFO after 20 s")
	}
}

// A file of teamlead's that appears while no console runs (an agent of
// another console made it: a sandbox protects only files that exist)
// waits for the human too; a changed one that existed is the human's.
func TestNewFileWaitsForTheHuman(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	s.write("answerers.yaml", "routes: []\n") // absent when the console started
	s.write("permissions.yaml", "default: deny\n")
	st, g, bad := s.console()
	if g != nil || len(bad) != 1 || bad[0] != s.files[2] {
		t.Fatalf("want answerers.yaml alone to wait, got %v", bad)
	}
	st.Close()
}

// TestChangeWhileStoppedWaitsWhenAnotherConsoleRan: on a machine where
// another team's console has run, a change made while this team's
// console was stopped waits for the human too — that console's agents
// could have made it (red team 9a) — and once accepted it passes.
func TestChangeWhileStoppedWaitsWhenAnotherConsoleRan(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	s.write("permissions.yaml", "default: ask\nrules:\n  - match: Bash(curl:*)\n    decide: allow\n")
	s.strict = true
	st, g, bad := s.console()
	if g != nil || len(bad) != 1 || bad[0] != s.files[1] {
		t.Fatalf("the change made while stopped: %v (guard %v)", bad, g != nil)
	}
	state, _, err := Load(st)
	if err != nil {
		t.Fatal(err)
	}
	state.Accept(Take(s.files))
	if err := Save(st, state); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, g, bad := s.console(); g == nil || len(bad) != 0 {
		t.Fatalf("after accepting: %v", bad)
	}
}

// What a loader parsed is held against what the guard accepted: a file
// that changed between the two looks is named.
func TestDiffersNamesAFileLoadedOtherThanChecked(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	defer st.Close()
	now := Take(s.files)
	read := map[string]string{s.files[0]: now[s.files[0]].Hash, s.files[1]: now[s.files[1]].Hash}
	if d := g.Differs(read); len(d) != 0 {
		t.Fatalf("the same content: %v", d)
	}
	read[s.files[1]] = "0123" // loaded something else
	missing := filepath.Join(filepath.Dir(s.files[0]), "presets.yaml")
	read[missing] = "" // not there for both: fine
	if d := g.Differs(read); len(d) != 1 || d[0] != s.files[1] {
		t.Fatalf("differs: %v", d)
	}
}

// What of the human's files runs later as the human, outside every
// sandbox, is protected where it exists: the shells' start-up files,
// ssh's, the autostart folders, and the folders of $PATH before the
// system's (red team 13a, finding 7).
func TestUserStartup(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, f := range []string{".bashrc", ".profile", ".ssh/authorized_keys"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".local/bin", "go/bin", ".config/systemd/user"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", filepath.Join(home, ".local/bin")+":"+filepath.Join(home, "bin")+":/usr/bin:"+filepath.Join(home, "go/bin")+":relative")
	// The user site folder of each of the system's pythons is made, to be
	// bound (red team 16a, finding 6).
	libs := t.TempDir()
	for _, d := range []string{"python3.12", "python3.12-config"} {
		if err := os.Mkdir(filepath.Join(libs, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer func(was []string) { pythonLibs = was }(pythonLibs)
	pythonLibs = []string{filepath.Join(libs, "python3.*")}
	defer func(was func() string) { systemHome = was }(systemHome)
	systemHome = func() string { return "" }
	got := UserStartup()
	want := []string{filepath.Join(home, ".bashrc"), filepath.Join(home, ".profile"), filepath.Join(home, ".ssh/authorized_keys"),
		filepath.Join(home, ".config/systemd/user"), filepath.Join(home, ".local/lib/python3.12/site-packages"),
		filepath.Join(home, ".local/bin"), filepath.Join(home, "bin")}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("UserStartup:\n got %v\nwant %v", got, want)
	}
	// The missing folder of PATH is made; a missing start-up file is
	// watched, not made.
	if missing := StartupMissing(); !slices.Contains(missing, filepath.Join(home, ".bash_profile")) || slices.Contains(missing, filepath.Join(home, "bin")) {
		t.Errorf("StartupMissing: %v", missing)
	}
	if _, err := os.Lstat(filepath.Join(home, ".bash_profile")); err == nil {
		t.Error("a .bash_profile was made")
	}
	if files := Protected("", "", nil); !slices.Contains(files, filepath.Join(home, ".bashrc")) {
		t.Errorf("Protected leaves out the start-up files: %v", files)
	}
}

// TestRebuiltStoreWaitsForTheHuman: a store rebuilt from the streams has
// no record of what the human accepted; every file waits for the human,
// one there or not, until accepted (red team 14c, finding 2: a rebuilt
// console took a permissions.yaml an agent made as a first start does).
func TestRebuiltStoreWaitsForTheHuman(t *testing.T) {
	s := newSetup(t)
	st, err := store.Open(s.state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := Forgotten(s.files).Meta()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(&store.Batch{Meta: meta}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, g, bad := s.console()
	if g != nil || strings.Join(bad, " ") != strings.Join([]string{s.files[2], s.files[1], s.files[0]}, " ") {
		t.Fatalf("want every file to wait (answerers.yaml missing too), got %v", bad)
	}
	state, _, err := Load(st)
	if err != nil {
		t.Fatal(err)
	}
	now := Take(s.files)
	if d := state.Diff(s.files[1], now[s.files[1]]); !strings.Contains(d, "nothing on record, the store was rebuilt") || !strings.Contains(d, "+default: ask") {
		t.Fatalf("diff of the policy:\n%s", d)
	}
	if !state.Forgot(s.files[0]) {
		t.Error("the team file's accepted content is not said to be lost")
	}
	// Strict or not, and whatever a killed console left.
	if bad := state.Unaccepted(now, true); len(bad) != 3 {
		t.Errorf("strict: %v", bad)
	}
	state.Accept(now, s.files[0], s.files[1])
	if bad := state.Unaccepted(now, false); len(bad) != 1 || bad[0] != s.files[2] {
		t.Fatalf("after accepting two: %v", bad)
	}
	state.Accept(now)
	if err := Save(st, state); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, g, bad = s.console()
	if g == nil || len(bad) > 0 {
		t.Fatalf("accepted, yet %v wait", bad)
	}
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()
}

// What the shell start-up files source is protected too, however it is
// spelt, two deep, and the folders their loops source from (red team 16a,
// finding 4); a sourced file that does not exist yet is watched.
func TestStartupFollowsWhatTheShellSources(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PATH", "/usr/bin")
	defer func(was []string) { pythonLibs = was }(pythonLibs)
	pythonLibs = nil
	elsewhere := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := rel
		if !filepath.IsAbs(p) {
			p = filepath.Join(home, rel)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".bashrc", `
[ -f ~/.bash_aliases ] && . ~/.bash_aliases
source "$HOME/.config/shell/extra.sh"
. "${HOME}/.local/share/myenv.sh"
export NVM_DIR="$HOME/.nvm"
[ -s "$NVM_DIR/nvm.sh" ] && \. "$NVM_DIR/nvm.sh"
for f in ~/.bashrc.d/*.sh; do . "$f"; done
. `+elsewhere+`/tools.sh
. "$(brew --prefix)/etc/profile.d/x.sh"
source $UNSET/x.sh
`)
	write(".bash_aliases", "alias ll='ls -l'\n")
	write(".config/shell/extra.sh", "source ~/.config/shell/deeper.sh\n")
	write(".config/shell/deeper.sh", ". ~/.too-deep.sh\n")
	write(".local/share/myenv.sh", "true\n")
	write(".nvm/nvm.sh", "true\n")
	write(".bashrc.d/10-go.sh", ". ~/.from-a-dir.sh\n")
	write(elsewhere+"/tools.sh", "true\n")
	// zsh syntax bash cannot parse: the lines that parse still count.
	write(".zshrc", "setopt extendedglob\nfoo=( ${(s.:.)PATH} )\nsource ~/.zsh-extra\n")
	got := UserStartup()
	for _, want := range []string{".bash_aliases", ".config/shell/extra.sh", ".config/shell", ".local/share/myenv.sh",
		".nvm/nvm.sh", ".bashrc.d", elsewhere + "/tools.sh"} {
		if !filepath.IsAbs(want) {
			want = filepath.Join(home, want)
		}
		if !slices.Contains(got, want) {
			t.Errorf("UserStartup leaves out %s: %v", want, got)
		}
	}
	missing := StartupMissing()
	for _, want := range []string{".from-a-dir.sh", ".zsh-extra"} {
		if !slices.Contains(missing, filepath.Join(home, want)) {
			t.Errorf("StartupMissing leaves out %s: %v", want, missing)
		}
	}
	// .bashrc sources extra.sh, which sources deeper.sh: read no further.
	if slices.Contains(missing, filepath.Join(home, ".too-deep.sh")) {
		t.Errorf("followed three deep: %v", missing)
	}
	for _, p := range append(got, missing...) {
		if strings.Contains(p, "$") || strings.Contains(p, "brew") {
			t.Errorf("an unknown path kept: %s", p)
		}
	}
}

// Every absolute folder of PATH before the system's is protected, in the
// home or not, and the package a link there leads to (red team 16a,
// findings 3 and 5).
func TestPathFoldersAndTheirLinksTargets(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	defer func(was []string) { pythonLibs = was }(pythonLibs)
	pythonLibs = nil
	tools := filepath.Join(t.TempDir(), "tools")
	bin := filepath.Join(home, ".local/bin")
	venv := filepath.Join(home, ".local/share/pipx/venvs/mytool")
	lone := filepath.Join(home, "scripts/lone.sh")
	for _, d := range []string{bin, filepath.Join(venv, "bin"), filepath.Dir(lone)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(venv, "pyvenv.cfg"), filepath.Join(venv, "bin/mytool"), lone} {
		if err := os.WriteFile(f, []byte("x\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"mytool": "../share/pipx/venvs/mytool/bin/mytool", "lone": lone, "gone": "/nowhere/x", "sh": "/bin/sh"} {
		if err := os.Symlink(to, filepath.Join(bin, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", tools+":"+bin+":/usr/local/bin:"+filepath.Join(t.TempDir(), "after"))
	got := UserStartup()
	for _, want := range []string{tools, bin, venv, lone} {
		if !slices.Contains(got, want) {
			t.Errorf("UserStartup leaves out %s: %v", want, got)
		}
	}
	for _, p := range got {
		if strings.HasSuffix(p, "after") || p == "/nowhere/x" {
			t.Errorf("UserStartup holds %s", p)
		}
	}
	if _, err := os.Stat(tools); err != nil {
		t.Errorf("the missing PATH folder outside the home was not made: %v", err)
	}
}

// The agent CLIs' own files are told, not protected; the human's .netrc is
// hidden (red team 16a, finding 8).
func TestHomeToldAndSecrets(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine x login y password z\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := UserSecrets(); fmt.Sprint(got) != fmt.Sprint([]string{filepath.Join(home, ".netrc")}) {
		t.Errorf("UserSecrets: %v", got)
	}
	var told []string
	for _, f := range HomeTold() {
		told = append(told, f.Path)
		if f.Check == "" {
			t.Errorf("%s: nothing said to check", f.Path)
		}
	}
	if !slices.Contains(told, filepath.Join(home, ".claude.json")) {
		t.Errorf("HomeTold: %v", told)
	}
	for _, p := range append(UserStartup(), StartupMissing()...) {
		if slices.Contains(told, p) {
			t.Errorf("%s is both told and protected", p)
		}
	}
}

// With $HOME elsewhere, the start-up files and git configuration of the
// home the system names are protected too (red team 18b, finding 5: a
// login or su reads /root/.bashrc whatever $HOME the console had).
func TestSystemHomeIsProtectedToo(t *testing.T) {
	home, sys := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	if err := os.WriteFile(filepath.Join(sys, ".bashrc"), []byte("# yours\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func(was func() string) { systemHome = was }(systemHome)
	systemHome = func() string { return sys }
	if got := UserStartup(); !slices.Contains(got, filepath.Join(sys, ".bashrc")) {
		t.Errorf("UserStartup has not the system home's .bashrc: %v", got)
	}
	if got := UserGitConfig(); !slices.Contains(got, filepath.Join(sys, ".gitconfig")) {
		t.Errorf("UserGitConfig has not the system home's .gitconfig: %v", got)
	}
	// Neither home is a system tree.
	for _, p := range SystemTrees() {
		if p == home || p == sys {
			t.Errorf("SystemTrees holds an own home: %s", p)
		}
	}
}

// Toolchains names the version managers' folders in the home and the Go
// the PATH names, found by its src/runtime (red team 18b, finding 3).
func TestToolchains(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PYENV_ROOT", "")
	t.Setenv("GOROOT", "")
	goroot := filepath.Join(home, "sdk", "go")
	for _, d := range []string{".pyenv/versions", "sdk/go/bin", "sdk/go/src/runtime"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(goroot, "bin", "go"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(goroot, "bin"))
	got := Toolchains()
	for _, want := range []string{filepath.Join(home, ".pyenv"), goroot} {
		if !slices.Contains(got, want) {
			t.Errorf("Toolchains: %v, want %s among them", got, want)
		}
	}
	if slices.Contains(got, filepath.Join(home, ".rustup")) {
		t.Errorf("Toolchains names a folder that does not exist: %v", got)
	}
}
