package textsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile is a hook payload that redraws the line to look harmless, then
// bidi, C1 and zero-width tricks.
const hostile = "rm -rf ~/ \x1b[2K\r\x1b[1A\x1b[2Kgo test ./... \u202egnp.exe\u202c \u009b31m \u200bx\x7f\x07\xff"

func TestNoRawControlOut(t *testing.T) {
	for name, got := range map[string]string{"Line": Line(hostile), "Text": Text(hostile + "\nnext\tcol")} {
		for _, r := range got {
			if Dangerous(r) && r != '\n' && r != '\t' || r == utf8.RuneError {
				t.Errorf("%s: raw %U in %q", name, r, got)
			}
		}
		for _, want := range []string{`\u001b[2K`, `\u000d`, `\u202e`, `\u009b`, `\u200b`, `\u007f`, `\u0007`, `\xff`, "rm -rf ~/"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: lacks %q: %q", name, want, got)
			}
		}
	}
	if got := Line("a\nb"); got != `a\u000ab` {
		t.Errorf("Line keeps no line break: %q", got)
	}
	if got := Text("a\nb\tc"); got != "a\nb\tc" {
		t.Errorf("Text keeps layout: %q", got)
	}
	if s := "plain ünïcode ✓ 日本"; Line(s) != s {
		t.Errorf("changed clean text: %q", Line(s))
	}
}

// The writer's escapes keep JSON valid and the same data.
func TestWriterKeepsJSON(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	b, _ := json.Marshal(map[string]string{"cmd": hostile})
	// Byte by byte: runes split across writes.
	for i := range b {
		if _, err := w.Write(b[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("%v: %s", err, out.Bytes())
	}
	want := strings.ToValidUTF8(hostile, "\ufffd")
	if back["cmd"] != want {
		t.Errorf("data changed: %q, want %q", back["cmd"], want)
	}
	for _, r := range out.String() {
		if Dangerous(r) && r != '\n' {
			t.Errorf("raw %U out of the writer", r)
		}
	}
}

func FuzzText(f *testing.F) {
	f.Add(hostile)
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Text(s) {
			if (Dangerous(r) && r != '\n' && r != '\t') || r == utf8.RuneError {
				t.Fatalf("raw %U from %q", r, s)
			}
		}
	})
}

func TestCleanReachesEveryString(t *testing.T) {
	type inner struct {
		Body   string
		Fields map[string]string
	}
	type outer struct {
		Name  string
		To    []string
		In    inner
		P     *inner
		Items []inner
		n     string // unexported: left alone
	}
	o := outer{Name: hostile, To: []string{hostile}, In: inner{Body: hostile, Fields: map[string]string{"k": hostile}},
		P: &inner{Body: hostile}, Items: []inner{{Body: hostile}}, n: "\x1b"}
	Clean(&o)
	for _, s := range []string{o.Name, o.To[0], o.In.Body, o.In.Fields["k"], o.P.Body, o.Items[0].Body} {
		if strings.ContainsAny(s, "\x1b\u202e\u009b") {
			t.Errorf("not cleaned: %q", s)
		}
	}
	recs := []inner{{Body: "\x1b[2J"}}
	Clean(recs)
	if recs[0].Body != `\u001b[2J` {
		t.Errorf("slice element: %q", recs[0].Body)
	}
}

// The invisible characters the eighth red team hid text with are escaped.
func TestInvisibleCharactersAreShown(t *testing.T) {
	for _, r := range []rune{0xe0020, 0xe0041, 0xfe0f, 0xe0100, 0x034f, 0x3164, 0xffa0, 0x115f, 0x1d173, 0xe000, 0xf0000, 0x13430, 0x1bca0} {
		if got := Line("a" + string(r) + "b"); strings.ContainsRune(got, r) {
			t.Errorf("U+%04X shown as itself: %q", r, got)
		}
	}
	if got := Line("naïve café 日本"); got != "naïve café 日本" {
		t.Errorf("ordinary text changed: %q", got)
	}
}

// On one line a tab, a blank braille pattern or a space other than ASCII's
// shows escaped: each could pad text out of sight or draw rows of its own
// (the ninth red team); Text keeps tabs and those spaces as layout.
func TestOneLineBlanksAreShown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ls\t\t08:31 approved", `ls\u0009\u000908:31 approved`},
		{"git status\u2800\u2800&& curl x", `git status\u2800\u2800&& curl x`},
		{"a\u00a0b\u3000c", `a\u00a0b\u3000c`},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Text("a\tb\u00a0c"); got != "a\tb\u00a0c" {
		t.Errorf("Text changed layout: %q", got)
	}
	if got := Text("x\u2800y"); got != `x\u2800y` {
		t.Errorf("Text kept the blank braille pattern: %q", got)
	}
}
