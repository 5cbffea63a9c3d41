package agents

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello world", "hello world"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"lone CR", "a\rb", "a\nb"},
		{"CR CR LF", "a\r\r\nb", "a\n\nb"},
		{"CSI color", "\x1b[31mred\x1b[0m", "red"},
		{"CSI private", "\x1b[?2004hx\x1b[?25l", "x"},
		{"CSI with intermediates", "a\x1b[2 qb", "ab"},
		{"paste end injection", "x\x1b[201~\rrm -rf /", "x\nrm -rf /"},
		{"OSC BEL", "\x1b]0;title\x07text", "text"},
		{"OSC ST", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS", "a\x1bPq#0;1;2\x1b\\b", "ab"},
		{"APC", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
		{"two-byte ESC", "a\x1b7b\x1b8c\x1b=d", "abcd"},
		{"nF charset", "a\x1b(Bb", "ab"},
		{"ESC at end", "abc\x1b", "abc"},
		{"unterminated CSI", "abc\x1b[12;", "abc"},
		{"unterminated OSC", "abc\x1b]0;title", "abc"},
		{"ESC ESC", "a\x1b\x1b[1mb", "ab"},
		{"OSC cut by ESC", "a\x1b]0;t\x1b[1mb", "ab"},
		{"C0 controls", "a\x00b\x07c\x08d\x7fe\x1af", "abcdef"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 OSC", "a\u009d0;t\u009cb", "ab"},
		{"C1 other", "a\u0085b", "ab"},
		{"unicode kept", "héllo ● ❯ 日本", "héllo ● ❯ 日本"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"CSI aborted by control", "a\x1b[1\nb", "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Fatalf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb", "\x1b]0;x\x07", "\r\n\r", "\u009b1m", "\xff\xfe", "\x1bP\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Fatalf("control %U left in %q (from %q)", r, out, s)
			}
		}
		if strings.ContainsRune(out, '\r') {
			t.Fatalf("CR left in %q", out)
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
	})
}
