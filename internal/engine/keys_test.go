package engine

import "testing"

func TestEncodeKeys(t *testing.T) {
	cases := []struct {
		in                   string
		appCursor, bracketed bool
		want                 string
	}{
		{"\x1b[A", false, false, "\x1b[A"},
		{"\x1b[A", true, false, "\x1bOA"},
		{"\x1b[H\x1b[F", true, false, "\x1bOH\x1bOF"},
		{"\x1b[1;5A", true, false, "\x1b[1;5A"}, // modified arrows keep CSI
		{"\x1b[200~a\nb\x1b[201~", false, true, "\x1b[200~a\nb\x1b[201~"},
		{"\x1b[200~a\nb\x1b[201~", false, false, "a\nb"},
		{"plain", true, true, "plain"},
	}
	for _, c := range cases {
		if got := string(encodeKeys([]byte(c.in), c.appCursor, c.bracketed)); got != c.want {
			t.Errorf("encodeKeys(%q, %v, %v) = %q, want %q", c.in, c.appCursor, c.bracketed, got, c.want)
		}
	}
}
