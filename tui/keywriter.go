package tui

import "sync"

// keyWriter passes focus-mode keys to agents in the order they were
// pressed. Bubble Tea runs commands concurrently, so writing each key from
// its own command would reorder fast typing; one goroutine writes them all.
type keyWriter struct {
	ch   chan keyPress
	mu   sync.Mutex
	errs []error
}

type keyPress struct {
	agent string
	b     []byte
}

func newKeyWriter(con Console) *keyWriter {
	w := &keyWriter{ch: make(chan keyPress, 4096)}
	go func() {
		for k := range w.ch {
			if err := con.Keys(k.agent, k.b); err != nil {
				w.mu.Lock()
				w.errs = append(w.errs, err)
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// send queues a key press; it blocks only if thousands are already queued.
func (w *keyWriter) send(agent string, b []byte) { w.ch <- keyPress{agent: agent, b: b} }

// takeErr returns and clears the latest write error, if any.
func (w *keyWriter) takeErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.errs) == 0 {
		return nil
	}
	err := w.errs[len(w.errs)-1]
	w.errs = nil
	return err
}
