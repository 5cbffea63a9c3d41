package permit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// argv renders each command as its argument values joined by spaces.
func argv(cmds []Command) []string {
	var out []string
	for _, c := range cmds {
		var ws []string
		for _, a := range c.Assigns {
			ws = append(ws, a.Value)
		}
		for _, a := range c.Args {
			ws = append(ws, a.Value)
		}
		s := strings.Join(ws, " ")
		if c.Control {
			s = "<control> " + s
		}
		out = append(out, s)
	}
	return out
}

func TestSplitShell(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`go test ./...`, []string{"go test ./..."}},
		{`a && b || c; d & e | f |& g`, []string{"a", "b", "c", "d", "e", "f", "g"}},
		{"a\nb\n\nc", []string{"a", "b", "c"}},
		{`echo "a; b" 'c && d' e\;f`, []string{"echo a; b c && d e;f"}},
		{`echo "x $(rm -rf /) y"`, []string{"echo x $(rm -rf /) y", "rm -rf /"}},
		{"echo `id`", []string{"echo `id`", "id"}},
		{"echo `echo \\`id\\``", []string{"echo `echo \\`id\\``", "echo `id\\`", "id"}},
		{`diff <(sort a) >(cat)`, []string{"diff <(sort a) >(cat)", "sort a", "cat"}},
		{`(cd sub && make) ; { ls; }`, []string{"cd sub", "make", "ls"}},
		{`if grep -q x f; then rm y; else rm z; fi`, []string{"<control> ", "grep -q x f", "rm y", "rm z"}},
		{`while read l; do echo "$l"; done < f`, []string{"<control> ", "read l", "echo $l", ""}}, // the loop's < f
		{`for f in $(ls); do cat "$f"; done`, []string{"<control> f=…", "ls", "cat $f"}},          // the loop sets f as f=… would
		{`case $(id) in a) rm x;; *) ls;; esac`, []string{"<control> ", "id", "rm x", "ls"}},
		{`f() { rm -rf /; }; f`, []string{"<control> f", "rm -rf /", "f"}},
		{`function f { id; }`, []string{"<control> f", "id"}},
		{`[[ -f x && -d y ]] && echo ok`, []string{"<control> ", "echo ok"}},
		{`(( i++ )) && echo $((1 + $(id -u)))`, []string{"<control> ", "echo $((1 + $(id -u)))", "id -u"}},
		{`FOO=1 BAR="a b" cmd arg`, []string{"FOO=1 BAR=a b cmd arg"}},
		{`x=(a b c); echo ${x[1]:-$(id)}`, []string{"x=(a b c)", "echo ${x[1]:-$(id)}", "id"}},
		{`$'\x72m' -rf $'\057'`, []string{"rm -rf /"}},
		{`r\m -rf "/"`, []string{"rm -rf /"}},
		{"rm \\\n -rf /", []string{"rm -rf /"}},
		{`ls # rm -rf /`, []string{"ls"}},
		{`echo a#b`, []string{"echo a#b"}},
		{"cat <<EOF\nrm -rf /\n$(id)\nEOF\necho done", []string{"cat", "id", "echo done"}},
		{"cat <<'EOF'\n$(id)\nEOF", []string{"cat"}},
		{"cat <<-EOF\n\t$(id)\n\tEOF\nls", []string{"cat", "id", "ls"}},
		{"git commit -m \"$(cat <<'EOF'\nit's (done)\nEOF\n)\"", []string{"git commit -m $(cat <<'EOF'\nit's (done)\nEOF\n)", "cat"}},
		{`cmd > out 2>&1 < in &> all`, []string{"cmd"}},
		{`2>/dev/null ls`, []string{"ls"}},
		{`! true`, []string{"true"}},
		{`echo {a,b} {x}`, []string{"echo a b {x}"}},
		{`git reset {--hard,}`, []string{"git reset --hard"}},
		{`echo x{a,} ""{a,} {1..3}`, []string{"echo xa x a  1 2 3"}},
	} {
		cmds, err := SplitShell(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := argv(cmds); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitShellWords(t *testing.T) {
	cmds, err := SplitShell(`cp ~/a "$HOME/b" *.go '*.go' {a,b} x`)
	if err != nil {
		t.Fatal(err)
	}
	w := cmds[0].Args
	if len(w) != 8 || !w[1].Tilde || w[2].Tilde || !w[2].Dynamic || !w[3].Glob || w[4].Glob || w[5].Dynamic || w[5].Value != "a" || w[6].Value != "b" || w[7].Dynamic {
		t.Errorf("flags: %+v", w)
	}
}

func TestSplitShellRedirects(t *testing.T) {
	cmds, err := SplitShell("cat <<EOF > /tmp/out 2>&1\nbody $x\nEOF\ntee -a log <<< 'hi' >&2")
	if err != nil {
		t.Fatal(err)
	}
	r := cmds[0].Redirects
	if len(r) != 3 || r[0].Op != "<<" || r[0].Body != "body $x\n" || r[1].Op != ">" || r[1].Target.Value != "/tmp/out" || r[2].FD != "2" || r[2].Op != ">&" {
		t.Errorf("first: %+v", r)
	}
	r = cmds[1].Redirects
	if len(r) != 2 || r[0].Op != "<<<" || r[0].Body != "hi" || r[1].Op != ">&" {
		t.Errorf("second: %+v", r)
	}
}

func TestSplitShellErrors(t *testing.T) {
	for _, in := range []string{
		`echo 'unterminated`,
		`echo "unterminated`,
		`echo $(unclosed`,
		"echo `unclosed",
		`echo ${unclosed`,
		`echo $'unterminated`,
		`a )`,
		`(a`,
		`coproc cat`,
		`((echo hi) && (rm -rf /))`,
		`echo >`,
		`cat <`,
		`ls (`,
		`[[ -f x`,
		strings.Repeat("$(", 100) + strings.Repeat(")", 100),
	} {
		if _, err := SplitShell(in); !errors.Is(err, ErrShell) {
			t.Errorf("%q: %v", in, err)
		}
	}
}
