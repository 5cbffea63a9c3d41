//go:build capture

// Recapture the real-program recordings in testdata/ (vim, less, htop, top
// and bash must be installed: apt-get install -y vim less htop procps):
//
//	go test -tags capture -run TestCapture -v ./internal/vt
//
// Each program runs on a PTY of the recorded size with TERM=xterm-256color
// and is driven with keys; its queries are answered by this emulator. The
// output bytes are written to testdata/<name>_<cols>x<rows>.bin and the
// byte offsets at which the screen is worth comparing (after each step) to
// testdata/recordings.json, which TestRecordingsMatchTmux reads.
package vt

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

type capSession struct {
	t       *testing.T
	cmd     *exec.Cmd
	f       *os.File
	term    *Terminal
	mu      sync.Mutex
	rec     []byte
	lastOut time.Time
	done    chan struct{}
	rec0    recording
}

func startCapture(t *testing.T, name string, cols, rows int, dir string, env []string, argv ...string) *capSession {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME=" + dir,
		"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
	}, env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	s := &capSession{t: t, cmd: cmd, f: f, done: make(chan struct{}), lastOut: time.Now(),
		rec0: recording{Name: name, Cols: cols, Rows: rows, Command: strings.Join(argv, " ")}}
	s.term = New(cols, rows, Options{Reply: f})
	go func() {
		defer close(s.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				s.mu.Lock()
				s.rec = append(s.rec, buf[:n]...)
				s.lastOut = time.Now()
				s.mu.Unlock()
				s.term.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *capSession) screenHas(sub string) bool {
	snap := s.term.Snapshot()
	for _, l := range snap.Screen {
		if strings.Contains(l.Text, sub) {
			return true
		}
	}
	return false
}

// waitFor waits until the screen shows sub, then until output pauses.
func (s *capSession) waitFor(sub string) {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !s.screenHas(sub) {
		if time.Now().After(deadline) {
			for y := range s.rec0.Rows {
				s.t.Logf("%2d %q", y, s.term.Text(y))
			}
			s.t.Fatalf("%s: %q never appeared", s.rec0.Name, sub)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.quiet()
}

// quiet waits until there has been no output for 400ms.
func (s *capSession) quiet() {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		idle := time.Since(s.lastOut)
		s.mu.Unlock()
		if idle > 400*time.Millisecond {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *capSession) send(keys string) {
	if _, err := io.WriteString(s.f, keys); err != nil {
		s.t.Fatalf("send: %v", err)
	}
}

// mark records the current length of the recording as a checkpoint.
func (s *capSession) mark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rec0.Checkpoints = append(s.rec0.Checkpoints, len(s.rec))
}

// finish waits for the program to exit and writes the recording.
func (s *capSession) finish(all *[]recording) {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		s.t.Fatalf("%s did not exit", s.rec0.Name)
	}
	_ = s.cmd.Wait()
	_ = s.f.Close()
	s.term.Close()
	s.rec0.File = fmt.Sprintf("%s_%dx%d.bin", s.rec0.Name, s.rec0.Cols, s.rec0.Rows)
	if n := len(s.rec0.Checkpoints); n == 0 || s.rec0.Checkpoints[n-1] != len(s.rec) {
		s.rec0.Checkpoints = append(s.rec0.Checkpoints, len(s.rec))
	}
	if len(s.rec) > 200<<10 {
		s.t.Fatalf("%s: recording is %d bytes, over 200 KB", s.rec0.Name, len(s.rec))
	}
	if err := os.WriteFile(filepath.Join("testdata", s.rec0.File), s.rec, 0o644); err != nil {
		s.t.Fatal(err)
	}
	*all = append(*all, s.rec0)
}

const vimSample = `package main

import "fmt"

// 挨拶 — a greeting with wide characters ✅ and an é.
func main() {
	for i := 0; i < 3; i++ {
		fmt.Println("hello, 世界", i)
	}
}
`

func TestCapture(t *testing.T) {
	for _, p := range []string{"vim", "less", "htop", "top", "bash"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed: apt-get install -y vim less htop procps", p)
		}
	}
	var all []recording

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(vimSample), 0o644); err != nil {
		t.Fatal(err)
	}
	var long strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&long, "%04d the quick brown fox jumps over the lazy dog %s\n", i, strings.Repeat("·", i%25))
	}
	if err := os.WriteFile(filepath.Join(dir, "long.txt"), []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		if err := os.Mkdir(filepath.Join(dir, n+".d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n+".sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("long.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}

	// vim: open a file, type a line, quit without saving.
	s := startCapture(t, "vim", 80, 24, dir, nil, "vim", "--clean", "-n", "main.go")
	s.waitFor("main.go")
	s.mark()
	s.send("GoTyped by teamlead: 新しい ✅ line")
	s.waitFor("Typed by")
	s.send("\x1b")
	s.quiet()
	s.mark()
	s.send(":q!\r")
	s.finish(&all)

	// less: a long file, page down twice, quit.
	s = startCapture(t, "less", 80, 24, dir, nil, "less", "long.txt")
	s.waitFor("0001 the quick")
	s.mark()
	s.send(" ")
	s.waitFor("0046 the quick")
	s.send(" ")
	s.waitFor("0069 the quick")
	s.mark()
	s.send("q")
	s.finish(&all)

	// htop: one refresh, quit.
	s = startCapture(t, "htop", 80, 24, dir, nil, "htop", "-d", "50")
	s.waitFor("F10Quit")
	s.mark()
	s.send("q")
	s.finish(&all)

	// top: one refresh, quit.
	s = startCapture(t, "top", 80, 24, dir, nil, "top", "-d", "5")
	s.waitFor("PID")
	s.mark()
	s.send("q")
	s.finish(&all)

	// bash: a coloured prompt, ls --color, a long line that wraps.
	ps1 := `PS1=\[\e[1;32m\]agent@teamlead\[\e[0m\]:\[\e[1;34m\]\w\[\e[0m\]\$ `
	s = startCapture(t, "bash", 80, 24, dir, []string{ps1, "LS_COLORS=di=01;34:ln=01;36:ex=01;32"},
		"bash", "--norc", "--noprofile", "-i")
	s.waitFor("agent@teamlead")
	s.send("ls --color=always -F\r")
	s.waitFor("alpha.sh")
	s.send("echo " + strings.Repeat("wrap-me-", 20) + "end\r")
	s.waitFor("wrap-me-end")
	s.mark()
	s.send("printf '\\e[38;5;208mwide: 日本語テキスト\\e[0m 😀 done\\n'\r")
	s.waitFor("done")
	s.mark()
	s.send("exit\r")
	s.finish(&all)

	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "recordings.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
