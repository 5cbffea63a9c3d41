package control

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Find prefers a running console to a stopped one and the one started
// closest to the folder; two running for the same folder are ambiguous; a
// record whose state folder is gone is removed.
func TestFindTheConsoleOfAFolder(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	project := t.TempDir()
	sub := filepath.Join(project, "svc")
	register := func(dir, config string, live bool) Registration {
		t.Helper()
		con, state := newConsole(t)
		r := Registration{Dir: dir, Config: config, State: state, Socket: filepath.Join(state, SocketName), Started: time.Now()}
		if live {
			listen(t, con, state)
		}
		if _, err := Register(r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	check := func(what, dir, config string, configSet bool, want Registration, wantLive bool) {
		t.Helper()
		got, live, ok, err := Find(dir, config, configSet)
		if err != nil || !ok || got.State != want.State || live != wantLive {
			t.Errorf("%s: got %+v live %v ok %v %v, want %s live %v", what, got, live, ok, err, want.State, wantLive)
		}
	}
	stoppedHere := register(project, filepath.Join(project, "team.yaml"), false)
	check("only a stopped one", filepath.Join(project, "a", "b"), "configs/team.yaml", false, stoppedHere, false)
	runningHere := register(project, filepath.Join(project, "team.yaml"), true)
	check("a running one first", filepath.Join(project, "a"), "configs/team.yaml", false, runningHere, true)
	runningSub := register(sub, filepath.Join(sub, "team.yaml"), true)
	check("the closest", filepath.Join(sub, "x"), "configs/team.yaml", false, runningSub, true)
	check("the team file named", filepath.Join(sub, "x"), filepath.Join(project, "team.yaml"), true, runningHere, true)
	if _, _, ok, err := Find(t.TempDir(), "configs/team.yaml", false); ok || err != nil {
		t.Errorf("another folder: found %v, %v", ok, err)
	}
	register(sub, filepath.Join(sub, "other.yaml"), true)
	if _, _, _, err := Find(sub, "configs/team.yaml", false); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("two running in the same folder: %v", err)
	}
	if err := os.RemoveAll(stoppedHere.State); err != nil {
		t.Fatal(err)
	}
	regs, err := Registrations()
	if err != nil || len(regs) != 3 {
		t.Errorf("after its state folder went: %d registrations, %v", len(regs), err)
	}
}

// Guarded names the files a console's guard checks by hash: this
// console's own, every registered console's (its Guarded list, or, for a
// registration without one, its team file and those beside it); never
// the executable, a shared git config or a state folder, a second name
// of which stops a sandbox (red team 11a, finding 8).
func TestGuardedAreTheTeamsFiles(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	projB, projC := t.TempDir(), t.TempDir()
	_, stateB := newConsole(t)
	_, stateC := newConsole(t)
	policyB, gitB := filepath.Join(projB, "policies", "b.yaml"), filepath.Join(projB, ".git", "config")
	for _, r := range []Registration{
		{Dir: projB, Config: filepath.Join(projB, "team.yaml"), State: stateB, Socket: filepath.Join(stateB, SocketName), Started: time.Now(),
			Protect: []string{filepath.Join(projB, "team.yaml"), policyB, gitB}, Guarded: []string{filepath.Join(projB, "team.yaml"), policyB}},
		{Dir: projC, Config: filepath.Join(projC, "configs", "team.yaml"), State: stateC, Socket: filepath.Join(stateC, SocketName), Started: time.Now()},
	} {
		if _, err := Register(r); err != nil {
			t.Fatal(err)
		}
	}
	own := filepath.Join(t.TempDir(), "team.yaml")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	guarded := Guarded([]string{own})
	for p, want := range map[string]bool{
		own: true, policyB: true, filepath.Join(projB, "team.yaml"): true,
		filepath.Join(projC, "configs", "team.yaml"): true, filepath.Join(projC, "configs", "permissions.yaml"): true,
		filepath.Join(projC, "configs", "presets.yaml"): true,
		gitB: false, exe: false, stateB: false, filepath.Join(projB, "permissions.yaml"): false,
	} {
		if got := guarded(p); got != want {
			t.Errorf("%s: guarded %v, want %v", p, got, want)
		}
	}
}

// A node's record lists the folders of its secrets for every console's
// sandboxes (Hidden), with the consoles' own; it is not a console
// (Registrations), and goes when its folders are gone (red team 11a,
// finding 7).
func TestNodeRecordsAreHidden(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	secret := t.TempDir()
	if _, err := RegisterNode(NodeRecord{Name: "gpu1", State: "/nowhere/node", Hide: []string{secret, "/", "relative"}}); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	creds := t.TempDir()
	stopped, err := Register(Registration{State: state, Socket: filepath.Join(state, SocketName), Hide: []string{creds}})
	if err != nil {
		t.Fatal(err)
	}
	defer stopped()
	got := Hidden()
	if !slices.Contains(got, secret) || !slices.Contains(got, creds) || slices.Contains(got, "/") || slices.Contains(got, "relative") {
		t.Errorf("hidden: %v", got)
	}
	regs, _ := Registrations()
	if len(regs) != 1 || regs[0].State != state {
		t.Errorf("registrations: %+v", regs)
	}
	if err := os.Remove(secret); err != nil {
		t.Fatal(err)
	}
	if got := Hidden(); slices.Contains(got, secret) {
		t.Errorf("a gone folder is still hidden: %v", got)
	}
	dir, _ := RegistryDir()
	if m, _ := filepath.Glob(filepath.Join(dir, "*"+nodeSuffix)); len(m) != 0 {
		t.Errorf("the record of a node whose folders are gone stays: %v", m)
	}
}
