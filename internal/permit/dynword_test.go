package permit

import "testing"

// TestDynamicWordsTheFloorLeaves: a word known only when it runs where no
// floor reads its value — a message, a count, a pattern, a path with a
// folder of its own, a branch to create — leaves the floor silent, so a
// policy that allows the command allows it (the built-in rules ask each,
// since no rule matches a word known only when it runs).
func TestDynamicWordsTheFloorLeaves(t *testing.T) {
	env, repl := corpusFixture(t)
	p := mustParse(t, permissive)
	for _, a := range []string{
		`git commit -m "$msg"`, `git commit -m "$(cat <<'EOF'` + "\nfix\nEOF\n)\"", `git checkout -b "$name"`,
		`git log -n $((N+1))`, `git log --author "$who"`, `cat src/$f`, `ls $DIR`, `echo $HOME`, `cd $DIR && ls`,
		`find . -name "$x"`, `go test ./... -run "$T"`, `cat <(echo hi)`, `grep -r "$PAT" src`,
		`git reset $'--soft'`, `git reset {--soft,}`, `mkdir -p src/{a,b}`, `cp src/main.go{,.bak}`, `echo {1..64}`,
	} {
		if d := p.Check("Bash("+repl.Replace(a)+")", "dev", env); d.Decide != Allow {
			t.Errorf("%s: %s by %s: %s", a, d.Decide, d.Rule, d.Why)
		}
	}
	// A package known only when it runs may be any folder's ($NAME can be
	// ../../x), whose C code the cgo check cannot read: the floor asks.
	if d := p.Check("Bash(go test ./pkg/$NAME)", "dev", env); d.Decide == Allow {
		t.Errorf("go test ./pkg/$NAME: allowed: %s", d.Why)
	}
}
