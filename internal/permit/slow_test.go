package permit

import (
	"strings"
	"testing"
	"time"
)

func TestSlowInputs(t *testing.T) {
	p := mustParse(t, permissive)
	for _, s := range []string{
		"find " + strings.Repeat("a ", 20) + strings.Repeat("-exec find "+strings.Repeat("a ", 20), 6),
		strings.Repeat("eval ", 200) + "ls",
		strings.Repeat("bash -c ", 50) + "ls",
		strings.Repeat("`", 60),
		strings.Repeat("${", 2000),
		strings.Repeat("$((", 500) + strings.Repeat("))", 500),
		strings.Repeat("docker run rm ", 300),
		strings.Repeat("sudo ", 3000) + "ls",
		strings.Repeat("a;", 5000),
		strings.Repeat("\"$(", 30) + strings.Repeat(")\"", 30),
		strings.Repeat("echo `echo \\`", 10),
		strings.Repeat("<<EOF ", 300) + "\n",
	} {
		start := time.Now()
		p.CheckAction(Action{Tool: "Bash", Arg: s, HasArg: true}, "dev", testEnv)
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("%.40q took %v", s, d)
		}
	}
}
