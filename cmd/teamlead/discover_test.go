package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/control"
)

// Without a console and without a store, a command says so, where it
// looked, and what to do.
func TestNoConsoleNoStoreSaysWhereItLooked(t *testing.T) {
	isolate(t)
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	dir := t.TempDir()
	t.Chdir(dir)
	registry := filepath.Join(os.Getenv("XDG_STATE_HOME"), "teamlead", "consoles")
	state := filepath.Join(data, "teamlead")
	for _, args := range [][]string{{"agents"}, {"inbox"}, {"audit"}, {"tasks"}, {"send", "dev", "hi"}, {"answer", "q-0001", "yes"}} {
		out, err := runCLI(t, args...)
		if err == nil {
			t.Errorf("%v: no error\n%s", args, out)
			continue
		}
		msg := err.Error()
		for _, want := range []string{"no console is running for this folder (" + dir + ")", "looked in " + registry,
			"none runs on the default state folder " + state, "start one with `teamlead run`, or pass --state DIR"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%v: %q lacks %q", args, msg, want)
			}
		}
		if reads := args[0] != "send" && args[0] != "answer"; reads != strings.Contains(msg, "which holds no store") {
			t.Errorf("%v: %q (reads the store: %v)", args, msg, reads)
		}
	}
	other := filepath.Join(dir, "elsewhere")
	_, err := runCLI(t, "inbox", "--state", other)
	if want := "no console is running on " + filepath.Join(other, "teamlead.sock") + " and " + other + " holds no store; start one with `teamlead run --state " + other + "`"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("inbox --state %s: %v\nwant %s", other, err, want)
	}
}

// A console that ran in a folder is found from that folder and those below
// it: its store is read and its team file used, without --state or
// --config; --config names another team's.
func TestFindsTheConsoleThatRanHere(t *testing.T) {
	o := newOffline(t)
	stopped, err := control.Register(control.Registration{Dir: o.dir, Config: o.config, State: o.state,
		Socket: filepath.Join(o.state, control.SocketName), Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	stopped()
	t.Chdir(filepath.Join(o.dir, "dev"))
	if out, err := runCLI(t, "inbox"); err != nil || !strings.Contains(out, "q-0001") || !strings.Contains(out, "m-3") {
		t.Errorf("inbox: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "agents"); err != nil || !strings.Contains(out, "not running (last: exited)") {
		t.Errorf("agents: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "progress", "--format", "json"); err != nil || !strings.Contains(out, `"workflow_id":"wf-1"`) {
		t.Errorf("progress: %v\n%s", err, out)
	}
	other := filepath.Join(t.TempDir(), "team.yaml")
	if err := os.WriteFile(other, []byte("agents:\n  - name: x\n    command: [sh]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "inbox", "--config", other); err == nil || !strings.Contains(err.Error(), "no console is running") {
		t.Errorf("inbox --config of another team: %v\n%s", err, out)
	}
}

// Run in a folder no console knows, a command names the consoles running
// elsewhere and how to reach them.
func TestNoConsoleHereNamesTheOnesElsewhere(t *testing.T) {
	isolate(t)
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	project, state := t.TempDir(), t.TempDir()
	// A short socket path: a unix socket's name is at most 107 bytes.
	sock, err := os.CreateTemp("", "tl-*.sock")
	if err != nil {
		t.Fatal(err)
	}
	sock.Close()
	os.Remove(sock.Name())
	l, err := net.Listen("unix", sock.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := control.Register(control.Registration{Dir: project, Config: filepath.Join(project, "team.yaml"), State: state,
		Socket: sock.Name(), Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	_, err = runCLI(t, "agents")
	if want := "; a console runs in " + project + " (--state " + state + "): run the command there, or pass its --state"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("agents: %v\nwant %q", err, want)
	}
}
