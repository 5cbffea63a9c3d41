package vt

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer collects replies.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitReply waits until the replies are want (they arrive on another
// goroutine).
func waitReply(t *testing.T, buf *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for buf.String() != want {
		if time.Now().After(deadline) || !strings.HasPrefix(want, buf.String()) {
			t.Fatalf("replies %q, want %q", buf.String(), want)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestReplies(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"dsr status", "\x1b[5n", "\x1b[0n"},
		{"dsr cursor", "\x1b[3;4H\x1b[6n", "\x1b[3;4R"},
		{"dsr cursor at the pending wrap", "\x1b[1;10Hx\x1b[6n", "\x1b[1;10R"},
		{"dsr cursor in origin mode", "\x1b[2;4r\x1b[?6h\x1b[2;1H\x1b[6n", "\x1b[2;1R"},
		{"dec dsr cursor", "\x1b[2;2H\x1b[?6n", "\x1b[?2;2R"},
		{"da1", "\x1b[c\x1b[0c", da1Reply + da1Reply},
		{"da2", "\x1b[>c\x1b[>0c", da2Reply + da2Reply},
		{"decid", "\x1bZ", da1Reply},
		{"osc 11 bel", "\x1b]11;?\x07", "\x1b]11;rgb:0000/0000/0000\x07"},
		{"osc 10 st", "\x1b]10;?\x1b\\", "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"},
		{"osc 10 and 11 at once", "\x1b]10;?;?\x07", "\x1b]10;rgb:ffff/ffff/ffff\x07\x1b]11;rgb:0000/0000/0000\x07"},
		{"osc 11 after a set", "\x1b]11;#102030\x07\x1b]11;?\x07", "\x1b]11;rgb:1010/2020/3030\x07"},
		{"osc 4", "\x1b]4;1;?;196;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]4;196;rgb:ffff/0000/0000\x07"},
		{"decrqm sync", "\x1b[?2026$p\x1b[?2026h\x1b[?2026$p", "\x1b[?2026;2$y\x1b[?2026;1$y"},
		{"decrqm paste", "\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"decrqm unknown", "\x1b[?9999$p", "\x1b[?9999;0$y"},
		{"decrqm ansi", "\x1b[4h\x1b[4$p\x1b[20$p", "\x1b[4;1$y\x1b[20;2$y"},
		{"kitty keyboard query", "\x1b[?u", "\x1b[?0u"},
		{"kitty keyboard after push", "\x1b[>5u\x1b[?u", "\x1b[?5u"},
		{"xtversion", "\x1b[>q", "\x1bP>|teamlead-vt\x1b\\"},
		{"window size", "\x1b[18t", "\x1b[8;4;10t"},
		{"decrqss sgr", "\x1b[1;38;5;208m\x1bP$qm\x1b\\", "\x1bP1$r0;1;38;5;208m\x1b\\"},
		{"decrqss region", "\x1b[2;3r\x1bP$qr\x1b\\", "\x1bP1$r2;3r\x1b\\"},
		{"decrqss unknown", "\x1bP$qzz\x1b\\", "\x1bP0$r\x1b\\"},
		{"xtgettcap", "\x1bP+q544e\x1b\\", "\x1bP0+r\x1b\\"},
		{"color scheme", "\x1b[?996n", "\x1b[?997;1n"},
		{"split query", "\x1b[", "\x1b[0n"}, // completed below
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf syncBuffer
			term := New(10, 4, Options{Reply: &buf})
			defer term.Close()
			term.Write([]byte(c.in))
			if c.name == "split query" {
				term.Write([]byte("5"))
				term.Write([]byte("n"))
			}
			waitReply(t, &buf, c.want)
		})
	}
}

func TestNoKittyKeyboard(t *testing.T) {
	var buf syncBuffer
	term := New(10, 4, Options{Reply: &buf, NoKittyKeyboard: true})
	defer term.Close()
	term.Write([]byte("\x1b[?u\x1b[>5u\x1b[5n"))
	waitReply(t, &buf, "\x1b[0n")
	if k := term.Modes().KittyKeyboard; k != 0 {
		t.Errorf("kitty flags %d", k)
	}
}

// TestReplyNeverBlocks checks that a reader that never reads the replies
// cannot block Write.
func TestReplyNeverBlocks(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	term := New(80, 24, Options{Reply: w})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// About 2 MB of replies, far more than the pipe or the queue holds.
		q := bytes.Repeat([]byte("\x1b[6n\x1b]11;?\x07"), 1000)
		for range 100 {
			term.Write(q)
		}
		term.Write([]byte("still alive"))
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write blocked on a reply writer nobody reads")
	}
	if got := term.Text(0); !strings.Contains(got, "still alive") {
		t.Errorf("screen %q", got)
	}
	term.Close()
	r.Close() // unblocks the reply goroutine's write
}

// TestRepliesAfterSlowReader checks replies arrive in order when the reader
// is slow but reads eventually.
func TestRepliesAfterSlowReader(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	term := New(80, 24, Options{Reply: w})
	defer term.Close()
	var want strings.Builder
	for i := 1; i <= 20; i++ {
		term.Write([]byte("\x1b[" + strconv.Itoa(i) + ";1H\x1b[6n"))
		want.WriteString("\x1b[" + strconv.Itoa(i) + ";1R")
	}
	got := make([]byte, want.Len())
	if err := r.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := readFull(r, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("replies %q, want %q", got, want.String())
	}
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// TestCloseStopsReplies checks that Close ends the reply goroutine.
func TestCloseStopsReplies(t *testing.T) {
	var buf syncBuffer
	term := New(10, 4, Options{Reply: &buf})
	term.Write([]byte("\x1b[5n"))
	waitReply(t, &buf, "\x1b[0n")
	term.Close()
	select {
	case <-term.reply.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the reply goroutine did not end")
	}
	term.Write([]byte("\x1b[5n")) // dropped
	if got := buf.String(); got != "\x1b[0n" {
		t.Errorf("replies after Close: %q", got)
	}
	term.Close() // twice is fine
}
