package agents

import "bytes"

// modeScanner follows DEC private mode changes (CSI ? Pm h / CSI ? Pm l) in
// a program's output and reports bracketed paste (mode 2004) switching on
// or off. It is a byte-at-a-time state machine, so a sequence split across
// reads is recognised.
type modeScanner struct {
	state    uint8
	params   [24]byte
	n        int
	overflow bool
}

const (
	msGround  uint8 = iota
	msEsc           // after ESC
	msCSI           // after ESC [
	msPrivate       // after ESC [ ?
)

// bracketedPasteMode is the DEC private mode number of bracketed paste.
const bracketedPasteMode = "2004"

// scan feeds b through the scanner. set is called with the new state each
// time the program sets or resets mode 2004.
func (s *modeScanner) scan(b []byte, set func(on bool)) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.state {
		case msGround:
			// Most output is text: jump to the next ESC.
			j := bytes.IndexByte(b[i:], 0x1b)
			if j < 0 {
				return
			}
			i += j
			s.state = msEsc
		case msEsc:
			switch c {
			case '[':
				s.state = msCSI
			case 0x1b:
			default:
				s.state = msGround
			}
		case msCSI:
			switch c {
			case '?':
				s.state, s.n, s.overflow = msPrivate, 0, false
			case 0x1b:
				s.state = msEsc
			default:
				s.state = msGround
			}
		case msPrivate:
			switch {
			case c >= '0' && c <= '9' || c == ';':
				if s.n < len(s.params) {
					s.params[s.n] = c
					s.n++
				} else {
					s.overflow = true
				}
			case c == 'h' || c == 'l':
				if !s.overflow && hasParam(s.params[:s.n], bracketedPasteMode) {
					set(c == 'h')
				}
				s.state = msGround
			case c == 0x1b:
				s.state = msEsc
			default:
				s.state = msGround
			}
		}
	}
}

// hasParam reports whether the ';'-separated list p holds want.
func hasParam(p []byte, want string) bool {
	for len(p) > 0 {
		i := 0
		for i < len(p) && p[i] != ';' {
			i++
		}
		if string(p[:i]) == want {
			return true
		}
		if i == len(p) {
			break
		}
		p = p[i+1:]
	}
	return false
}
