package lead

// echoCapacity bounds how many typed envelopes per agent are remembered as
// possible echo. A PTY echoes within milliseconds, so a short memory is enough.
const echoCapacity = 256

// echoRing remembers fingerprints of envelopes typed into one agent. Each
// fingerprint matches one echoed copy, then is forgotten.
type echoRing struct {
	fps  [echoCapacity]uint64
	used [echoCapacity]bool
	next int
}

func (r *echoRing) add(fp uint64) {
	r.fps[r.next] = fp
	r.used[r.next] = true
	r.next = (r.next + 1) % echoCapacity
}

// consume reports whether fp was typed into the agent and forgets it.
func (r *echoRing) consume(fp uint64) bool {
	for i := range r.fps {
		if r.used[i] && r.fps[i] == fp {
			r.used[i] = false
			return true
		}
	}
	return false
}
