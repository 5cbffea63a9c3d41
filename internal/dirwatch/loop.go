package dirwatch

import (
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Loop is a watcher's goroutine: it hands the events and overflows of an
// fsnotify watcher, and the messages of type M the watcher's timers send,
// to handlers one at a time until Close.
type Loop[M any] struct {
	fsw     *fsnotify.Watcher
	fire    chan M
	done    chan struct{} // closed by Close: senders give up, Run returns
	stopped chan struct{} // closed when Run has returned
	once    sync.Once
}

// NewLoop makes the fsnotify watcher of a loop that Run starts.
func NewLoop[M any]() (*Loop[M], error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &Loop[M]{fsw: fsw, fire: make(chan M), done: make(chan struct{}), stopped: make(chan struct{})}, nil
}

// Notify is the loop's fsnotify watcher (for NewFolders).
func (l *Loop[M]) Notify() *fsnotify.Watcher { return l.fsw }

// Run calls event with each file system event, overflow after each error
// of the watcher (an overflow may have lost events: look again), and fire
// with each message sent, until Close. Call it once, on a goroutine of its
// own.
func (l *Loop[M]) Run(event func(fsnotify.Event), overflow func(), fire func(M)) {
	defer close(l.stopped)
	for {
		select {
		case <-l.done:
			return
		case ev, ok := <-l.fsw.Events:
			if !ok {
				return
			}
			event(ev)
		case _, ok := <-l.fsw.Errors:
			if !ok {
				return
			}
			overflow()
		case m := <-l.fire:
			fire(m)
		}
	}
}

// Send hands m to Run's fire, or drops it once Close has begun. It waits
// while a handler runs: call it from a timer, not under a lock the
// handlers take.
func (l *Loop[M]) Send(m M) {
	select {
	case l.fire <- m:
	case <-l.done:
	}
}

// Close calls stop (the owner marks itself closed and stops its timers),
// then ends Run and closes the fsnotify watcher; no handler runs once it
// has returned. Run must have been started. Later calls return nil.
func (l *Loop[M]) Close(stop func()) error {
	var err error
	l.once.Do(func() {
		stop()
		close(l.done)
		err = l.fsw.Close()
		<-l.stopped
	})
	return err
}
