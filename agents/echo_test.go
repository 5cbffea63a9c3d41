package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The kernel's echo of typed text never lands in a cooked program's output,
// however fast the program writes while the console types: the console
// draws it (Echo), in order, and the program's output holds only its own
// lines (before, the echo of a relayed envelope could split the agent's own
// [ROUTE] block, and neither parsed).
func TestEchoNeverMixesWithOutput(t *testing.T) {
	const n = 200
	script := `(while :; do echo own-line; sleep 0.001; done) & i=0; while read l; do i=$((i+1)); echo "read $i"; done`
	a, rec := start(t, Spec{Command: []string{"sh", "-c", script}})
	dones := make([]*doneRec, n)
	for i := range dones {
		dones[i] = newDone()
		a.Type(fmt.Sprintf("TYPED-%d [ROUTE] to: x", i), dones[i].fn)
	}
	for _, d := range dones {
		if err := d.wait(t, rec); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "every line read", rec.diag, func() bool { return rec.has(fmt.Sprintf("read %d\r\n", n)) })
	if rec.has("TYPED") {
		t.Fatalf("the kernel's echo is in the program's output\n%s", rec.diag())
	}
	rec.mu.Lock()
	echo := string(rec.echo)
	rec.mu.Unlock()
	var want strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&want, "TYPED-%d [ROUTE] to: x\r\n", i)
	}
	if echo != want.String() {
		t.Fatalf("the echo drawn is not what was typed, in order:\n%q", echo)
	}
}

// Once the program has read the message, its terminal echoes again: keys
// the human types later are echoed by the kernel, as without the console.
func TestEchoComesBackAfterRead(t *testing.T) {
	a, rec := start(t, Spec{Command: []string{"sh", "-c", `echo ready; read a; echo "got1 [$a]"; read b; echo "got2 [$b]"; sleep 100`}})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	d := newDone()
	a.Type("first", d.fn)
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "got1", rec.diag, func() bool { return rec.has("got1 [first]") })
	echoSettled(t, a, rec)
	if _, err := a.Write([]byte("later\r")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "got2", rec.diag, func() bool { return rec.has("got2 [later]") })
	if !rec.has("later\r\n") {
		t.Fatalf("the terminal did not echo the human's keys after the message was read\n%s", rec.diag())
	}
	if rec.has("first\r\n") {
		t.Fatalf("the typed message was echoed by the kernel\n%s", rec.diag())
	}
}

// A program that changed its terminal while a message waited keeps what it
// set: the console gives the echo back only to a terminal it finds as it
// left it.
func TestEchoNotRestoredOverTheProgramsChange(t *testing.T) {
	dir := t.TempDir()
	script := `echo ready; while [ ! -e go ]; do sleep 0.01; done; stty -echo -echoe; read a; echo "got1 [$a]"; read b; echo "got2 [$b]"; sleep 100`
	a, rec := start(t, Spec{Command: []string{"sh", "-c", script}, Dir: dir})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	d := newDone()
	a.Type("first", d.fn)
	eventually(t, "the echo drawn", rec.diag, func() bool { return rec.echoed("first") })
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "got1", rec.diag, func() bool { return rec.has("got1 [first]") })
	echoSettled(t, a, rec)
	if _, err := a.Write([]byte("secret\r")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "got2", rec.diag, func() bool { return rec.has("got2 [secret]") })
	if rec.has("secret\r\n") {
		t.Fatalf("echo was turned back on over the program's stty -echo\n%s", rec.diag())
	}
}

// echoSettled waits until the writer is done with the last message's echo
// (it gives it back, or leaves it, after the message's done returned).
func echoSettled(t *testing.T, a *Agent, rec *recorder) {
	t.Helper()
	eventually(t, "the console done with the terminal's echo", rec.diag, func() bool {
		a.mu.Lock()
		p := a.cur
		a.mu.Unlock()
		p.wmu.Lock()
		defer p.wmu.Unlock()
		return p.echo == nil
	})
}

// echoForm draws what Linux's n_tty echoes.
func TestEchoForm(t *testing.T) {
	cooked := unix.Termios{Iflag: unix.ICRNL, Oflag: unix.OPOST | unix.ONLCR, Lflag: unix.ICANON | unix.ECHO | unix.ECHOE | unix.ECHOCTL}
	cooked.Cc[unix.VERASE] = 0x7f
	for _, c := range []struct {
		tio      unix.Termios
		in, want string
	}{
		{cooked, "hi\rthere\n", "hi\r\nthere\r\n"},
		{cooked, "\x1b[200~x\x1b[201~", "^[[200~x^[[201~"},
		{cooked, "ab\x7fc\tz", "ab\b \bc\tz"},
		{cooked, "é", "é"},
		{unix.Termios{Lflag: unix.ECHO}, "a\r\x03", "a\r\x03"},
		{unix.Termios{Iflag: unix.IGNCR, Oflag: unix.OPOST | unix.ONLCR, Lflag: unix.ECHO}, "a\r\n", "a\r\n"},
	} {
		if got := string(echoForm(&c.tio, []byte(c.in))); got != c.want {
			t.Errorf("echoForm(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
