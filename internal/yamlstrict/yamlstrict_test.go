package yamlstrict

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestWalk(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		m         Mapping
		want      string
	}{
		{"known, aliases followed", "a: &x 1\nb: *x\n", Mapping{Known: []string{"a", "b"}}, "ok a=1 ok b=1"},
		{"unknown and twice", "a: 1\nzz: 2\na: 3\n", Mapping{Known: []string{"a"}, Hint: "!"},
			"ok a=1 bad zz: unknown field; known fields are a! bad a: given twice (first on line 1)"},
		{"any key when Known is nil", "q: 1\n", Mapping{}, "ok q=1"},
		{"plain keys", "? [x]\n: 1\n", Mapping{PlainKeys: true}, "bad (key): a key must be a plain word"},
		{"under a path", "a: 1\n", Mapping{}, "ok p.a=1"},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(c.doc), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		c.m.Each = func(f string, _, v *yaml.Node) error { got = append(got, "ok "+f+"="+v.Value); return nil }
		c.m.Bad = func(f string, _ *yaml.Node, msg string) error { got = append(got, "bad "+f+": "+msg); return nil }
		path := ""
		if c.name == "under a path" {
			path = "p"
		}
		if err := c.m.Walk(doc.Content[0], path); err != nil {
			t.Fatal(err)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: got %q, want %q", c.name, g, c.want)
		}
	}
}

func TestWalkStopsAtAnError(t *testing.T) {
	var doc yaml.Node
	_ = yaml.Unmarshal([]byte("a: 1\nb: 2\n"), &doc)
	stop := errors.New("stop")
	n := 0
	err := Mapping{Each: func(string, *yaml.Node, *yaml.Node) error { n++; return stop }}.Walk(doc.Content[0], "")
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d keys", err, n)
	}
}

func TestErrorLine(t *testing.T) {
	var doc yaml.Node
	err := yaml.Unmarshal([]byte("a: 1\nb: [\n"), &doc)
	if line, mark := ErrorLine(err.Error()); line == 0 || mark != "line "+string(rune('0'+line))+":" {
		t.Fatalf("%v: line %d, mark %q", err, line, mark)
	}
	if line, mark := ErrorLine("no line here"); line != 0 || mark != "" {
		t.Fatalf("line %d, mark %q", line, mark)
	}
}
