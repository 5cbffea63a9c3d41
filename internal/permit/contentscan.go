package permit

import (
	"bytes"
	"strings"
)

// A credential is found by its content (a token's shape, a private key's
// armour) the same way whichever road reaches the file: named (Read, cat
// f), matched by a glob (cat d/*), or met in a walk through a folder
// (grep -r, find -exec cat, tar, git grep, git add -A). A named file is
// looked at up to readScan and a larger one asks; a walk looks at every
// file whole, within walkBudget bytes for the whole walk, and a walk that
// would read more asks (red team 13b, finding 2: cat d/* and grep -rn
// TOKEN . printed the ghp_ token cat d/notes.txt was asked for).

// walkBudget bounds how many bytes one walk through a folder reads to
// look for keys and tokens; a tree holding more counts as holding one.
const walkBudget = 128 << 20

// scanBudget is what is left of walkBudget in one walk.
type scanBudget struct{ left int64 }

func newScanBudget() *scanBudget { return &scanBudget{left: walkBudget} }

// walkSecret reports a file met in a walk that holds a credential: by
// name (secretFileScan), or by a key or token anywhere in it. A file the
// budget cannot cover counts as holding one; over says so (the search's
// own test of what it prints cannot look at it either).
func (e Env) walkSecret(abs string, b *scanBudget) (why string, ok, over bool) {
	if e.secretFileScan(abs, keyScanWalk) {
		return "", true, false
	}
	if e.FS == nil {
		return "", false, false
	}
	real := e.realPath(abs)
	fi, err := e.FS.Lstat(real)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return "", false, false
	}
	if b != nil {
		if b.left -= fi.Size(); b.left < 0 {
			return " (the files there are too large to look through for keys and tokens)", true, true
		}
	}
	body, err := e.readHead(real, int(min(fi.Size(), walkBudget)))
	if err != nil {
		return "", false, false
	}
	if hasPrivateKey(body) {
		return " (it holds a private key)", true, false
	}
	if hasToken(body) {
		return " (it holds a key or token)", true, false
	}
	return "", false, false
}

// secretLines returns the lines of data that hold a secret: a private
// key's armour, BEGIN to END, and every line a key or token touches (a
// netrc entry over three lines is three lines).
func secretLines(data []byte) []string {
	lines := privateKeyLines(strings.Split(string(data), "\n"))
	for _, sp := range tokenSpans(data) {
		for sp[1] > sp[0] && (data[sp[1]-1] == '\n' || data[sp[1]-1] == '\r') {
			sp[1]-- // a shape that takes the line's end: not the next line
		}
		start := bytes.LastIndexByte(data[:sp[0]], '\n') + 1
		end := len(data)
		if k := bytes.IndexByte(data[sp[1]:], '\n'); k >= 0 {
			end = sp[1] + k
		}
		lines = append(lines, strings.Split(string(data[start:end]), "\n")...)
	}
	return lines
}
