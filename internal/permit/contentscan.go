package permit

import (
	"bytes"
	"encoding/base64"
	"regexp"
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
	if multiLinked(fi) && !inPackageDir(real) {
		return hardLinkRead, true, false
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
	if why, ok := contentSecret(body); ok {
		return why, true, false
	}
	return "", false, false
}

// contentSecret reports a key or token in data: as written, in text
// stored as UTF-16 (a BOM, or a NUL after most ASCII bytes), or in the
// base64 values of a Kubernetes Secret's data: (red team 13b, finding 18).
func contentSecret(data []byte) (string, bool) {
	if hasPrivateKey(data) {
		return " (it holds a private key)", true
	}
	if hasToken(data) {
		return " (it holds a key or token)", true
	}
	if u, ok := utf16Text(data); ok {
		if hasPrivateKey(u) || hasToken(u) {
			return " (it holds a key or token, written as UTF-16)", true
		}
	}
	if bytes.Contains(data, []byte("kind:")) && kubeSecret.Match(data) {
		for _, m := range kubeValue.FindAllSubmatch(data, 2000) {
			dec, err := base64.StdEncoding.DecodeString(string(m[1]))
			if err != nil || len(dec) < 8 {
				continue
			}
			if hasPrivateKey(dec) || hasToken(dec) {
				return " (a Kubernetes Secret whose data holds a key or token, base64-encoded)", true
			}
			if u, ok := utf16Text(dec); ok && (hasPrivateKey(u) || hasToken(u)) {
				return " (a Kubernetes Secret whose data holds a key or token, base64-encoded)", true
			}
		}
	}
	return "", false
}

// kubeSecret finds a Kubernetes Secret manifest (YAML or JSON), and
// kubeValue the base64 values under its data (one per line, or quoted).
var (
	kubeSecret = regexp.MustCompile(`(?m)^\s*"?kind"?\s*:\s*"?Secret"?\s*,?\s*$`)
	kubeValue  = regexp.MustCompile(`(?m)["']?[A-Za-z0-9._-]+["']?\s*:\s*["']?([A-Za-z0-9+/]{12,}={0,2})["']?\s*,?\s*$`)
)

// utf16Text returns data read as UTF-16 text, little or big endian, when
// it looks like that: a byte-order mark, or a NUL at every other byte of
// its start; the ASCII letters kept, the rest dropped.
func utf16Text(data []byte) ([]byte, bool) {
	if len(data) < 4 {
		return nil, false
	}
	off := -1 // the byte of each pair that holds the ASCII letter
	switch {
	case data[0] == 0xFF && data[1] == 0xFE:
		off, data = 0, data[2:]
	case data[0] == 0xFE && data[1] == 0xFF:
		off, data = 1, data[2:]
	default:
		n := min(len(data), 512) &^ 1
		even, odd := 0, 0
		for i := 0; i < n; i += 2 {
			if data[i] == 0 {
				even++
			}
			if data[i+1] == 0 {
				odd++
			}
		}
		switch {
		case odd*4 >= n && even*16 < n: // "A\x00P\x00…": little endian
			off = 0
		case even*4 >= n && odd*16 < n:
			off = 1
		default:
			return nil, false
		}
	}
	out := make([]byte, 0, len(data)/2)
	for i := 0; i+1 < len(data); i += 2 {
		if data[i+1-off] == 0 && data[i+off] < 0x80 {
			out = append(out, data[i+off])
		} else {
			out = append(out, ' ')
		}
	}
	return out, true
}

// secretLines returns the lines of data that hold a secret: a private
// key's armour, BEGIN to END, and every line a key or token touches (a
// netrc entry over three lines is three lines); every line of a file
// whose secret is encoded (UTF-16, a Kubernetes Secret's base64).
func secretLines(data []byte) []string {
	if !hasPrivateKey(data) && !hasToken(data) {
		if _, ok := contentSecret(data); ok {
			return strings.Split(string(data), "\n")
		}
	}
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
