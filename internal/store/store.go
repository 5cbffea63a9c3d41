// Package store is teamlead's durable state: the append-only audit log with
// its indexes, the outbox of pending PTY deliveries, and small meta values,
// kept in an embedded Badger database. A Commit returns only once its batch is
// on disk (page cache, or fsynced with Options.Sync), so a console killed with
// SIGKILL loses nothing it acknowledged. See keys.go for the key layout.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrLocked means another process (a running console) owns the state dir.
	ErrLocked = errors.New("state dir is locked by another process")
	// ErrDiskFull means the filesystem holding the state dir is out of space.
	ErrDiskFull = errors.New("no space left for the state dir")
	// ErrReadOnly means a write was attempted on a store opened ReadOnly.
	ErrReadOnly = errors.New("store is open read-only")
	// ErrClosed means the store was used after Close.
	ErrClosed = errors.New("store is closed")
	// ErrNoStore means a ReadOnly open found no state in the directory.
	ErrNoStore = errors.New("no teamlead state in directory")
	// ErrTooLarge means one record or delivery is too large for one transaction.
	ErrTooLarge = errors.New("entry too large for the store")
)

// DefaultMinFreeBytes is the free space below which Commit refuses writes.
const DefaultMinFreeBytes = 64 << 20

// Options configures Open.
type Options struct {
	// Sync makes every commit fsync (power-loss durability); concurrent
	// commits are group-committed by Badger. Without it a commit is in the
	// page cache when Commit returns, which survives a killed process.
	Sync bool
	// ReadOnly opens for reading only (the CLI when no console runs). It fails
	// with ErrLocked while another process holds the directory. If the last
	// owner was killed, the directory is first recovered with a brief
	// read-write open, because Badger cannot replay its log read-only.
	ReadOnly bool
	// Logger receives Badger's warnings and errors; nil discards them.
	Logger *slog.Logger
	// MinFreeBytes makes Commit fail with ErrDiskFull while the state dir's
	// filesystem has less free space; 0 means DefaultMinFreeBytes, <0 disables.
	MinFreeBytes int64
}

// Store is an open state directory. Its methods are safe for concurrent use.
type Store struct {
	db       *badger.DB
	dir      string
	readOnly bool
	alloc    *allocator
	space    *spaceGuard
	// timeBudget bounds the time-index keys a query reads (timeIndexBudget).
	timeBudget int

	// metaIx holds the meta indexes by prefix (copy on write, under metaMu).
	metaIx atomic.Pointer[map[string]*metaIndex]
	// metaMu orders commits of meta keys against index builds: a commit
	// holds it shared, or exclusively when it writes an indexed key.
	metaMu sync.RWMutex
	// regMu serialises IndexMeta calls.
	regMu sync.Mutex
	// chunk is how many values one step of an index build takes (metaIndexChunk).
	chunk int
	// jrnl is the journal's configuration, nil while it is off (journal.go).
	jrnl atomic.Pointer[journalConfig]

	mu       sync.Mutex // guards closed and the inflight Add
	closed   bool
	inflight sync.WaitGroup
}

// Open opens (creating with mode 0700 unless ReadOnly) the state dir.
func Open(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("store: empty state dir path")
	}
	if err := prepareDir(dir, opts.ReadOnly); err != nil {
		return nil, err
	}
	db, err := openDB(dir, opts)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, dir: dir, readOnly: opts.ReadOnly, timeBudget: timeIndexBudget, chunk: metaIndexChunk}
	if !opts.ReadOnly {
		s.space = newSpaceGuard(dir, opts.MinFreeBytes)
	}
	if s.alloc, err = recoverAllocator(db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: recover counters in %s: %w", dir, err)
	}
	if err := s.loadMetaIndexes(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: read the meta indexes of %s: %w", dir, err)
	}
	if err := s.loadJournal(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: read the journal of %s: %w", dir, err)
	}
	return s, nil
}

// prepareDir creates the directory for a writer, or checks a reader has state to read.
func prepareDir(dir string, readOnly bool) error {
	if !readOnly {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("store: create state dir: %w", err)
		}
		return nil
	}
	_, err := os.Stat(filepath.Join(dir, "MANIFEST"))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s has no store yet; start a console with this state dir first", ErrNoStore, dir)
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// lockWait bounds the wait for a directory lock whose owner is dead.
const lockWait = 5 * time.Second

// openDB opens Badger, recovering an unclean directory before a read-only open.
func openDB(dir string, opts Options) (*badger.DB, error) {
	db, err := badger.Open(badgerOptions(dir, opts))
	// The lock of a console killed a moment ago can outlive it briefly: a
	// child it was forking holds a copy of every descriptor until its exec
	// (a sandbox's waits for its user namespace's maps, then finds the
	// console gone). A soak's restart right after a SIGKILL found it held.
	// So while the pid Badger wrote in the lock file is no process, wait.
	for deadline := time.Now().Add(lockWait); err != nil && isLockErr(err) && ownerGone(dir) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		db, err = badger.Open(badgerOptions(dir, opts))
	}
	if err != nil && !opts.ReadOnly && memtableLeftEmpty(err) {
		db, err = badger.Open(badgerOptions(dir, opts))
	}
	// Read-only, Badger cannot size that file (it fails on the truncate):
	// the read-write open of the replay does, as for a log to truncate.
	if err != nil && opts.ReadOnly && (needsReplay(err) || memtableLeftEmpty(err) || strings.Contains(err.Error(), "while opening memtables")) {
		if err = replay(dir, opts); err == nil {
			db, err = badger.Open(badgerOptions(dir, opts))
		}
	}
	if err != nil {
		return nil, openError(dir, err)
	}
	return db, nil
}

// needsReplay reports whether a read-only open failed on a log left by a killed writer.
func needsReplay(err error) bool {
	return errors.Is(err, badger.ErrTruncateNeeded) ||
		strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error())
}

// memtableLeftEmpty reports Badger's open failing on a memtable file that
// a writer killed between creating and sizing it left empty
// (dgraph-io/badger#2207: "Create a new file", z.NewFile). The failed
// open sizes the file under Badger's directory lock, so a second open
// succeeds; a soak run's console restart failed on it after a SIGKILL.
func memtableLeftEmpty(err error) bool { return strings.Contains(err.Error(), "Create a new file") }

// replay opens dir read-write once so Badger replays and truncates its log.
func replay(dir string, opts Options) error {
	rw := opts
	rw.ReadOnly = false
	db, err := badger.Open(badgerOptions(dir, rw))
	if err != nil && memtableLeftEmpty(err) {
		db, err = badger.Open(badgerOptions(dir, rw))
	}
	if err != nil {
		return err
	}
	return db.Close()
}

// openError turns a Badger open failure into a user-facing error.
func openError(dir string, err error) error {
	if isLockErr(err) {
		return fmt.Errorf("%w: %s is in use: a teamlead console is already running with this state dir "+
			"(talk to it through its control socket, or stop it first): %v", ErrLocked, dir, err)
	}
	if isNoSpace(err) {
		return diskFull(dir, err)
	}
	return fmt.Errorf("store: open %s: %w", dir, err)
}

// ownerGone reports whether the process Badger recorded as holding dir's
// lock (the pid in its LOCK file) no longer exists.
func ownerGone(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "LOCK"))
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return false
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// isLockErr recognises Badger's directory-lock failure (it wraps without %w).
func isLockErr(err error) bool {
	return errors.Is(err, syscall.EWOULDBLOCK) ||
		strings.Contains(err.Error(), "Cannot acquire directory lock")
}

// badgerOptions is the small-memory profile (Badger's defaults reserve hundreds of MB).
func badgerOptions(dir string, opts Options) badger.Options {
	return badger.DefaultOptions(dir).
		WithSyncWrites(opts.Sync).
		WithReadOnly(opts.ReadOnly).
		WithLogger(quietLogger{opts.Logger}).
		WithMetricsEnabled(false).
		WithDetectConflicts(false).
		WithMemTableSize(8 << 20).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(8).
		WithBaseTableSize(2 << 20).
		WithBaseLevelSize(10 << 20).
		WithValueLogFileSize(64 << 20).
		WithValueThreshold(256 << 10).
		WithBlockCacheSize(8 << 20).
		WithIndexCacheSize(4 << 20).
		WithNumCompactors(2).
		WithCompression(options.Snappy)
}

// Close waits for in-flight calls, releases unused delivery IDs and closes Badger.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.inflight.Wait()
	var err error
	if !s.readOnly {
		err = s.alloc.release(s.db)
	}
	if cerr := s.db.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("store: close %s: %w", s.dir, cerr)
	}
	return err
}

// enter registers a call; it fails once Close has begun.
func (s *Store) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.inflight.Add(1)
	return nil
}

// leave ends a call registered by enter.
func (s *Store) leave() { s.inflight.Done() }

// quietLogger routes Badger's warnings and errors to an optional slog.Logger
// and drops its info and debug chatter (the console owns the terminal).
type quietLogger struct{ l *slog.Logger }

// Errorf logs a Badger error.
func (q quietLogger) Errorf(f string, a ...any) { q.log(slog.LevelError, f, a) }

// Warningf logs a Badger warning.
func (q quietLogger) Warningf(f string, a ...any) { q.log(slog.LevelWarn, f, a) }

// Infof drops Badger's info messages.
func (quietLogger) Infof(string, ...any) {}

// Debugf drops Badger's debug messages.
func (quietLogger) Debugf(string, ...any) {}

// log forwards one message when a logger is set.
func (q quietLogger) log(level slog.Level, f string, a []any) {
	if q.l == nil {
		return
	}
	q.l.Log(context.Background(), level, strings.TrimSpace(fmt.Sprintf(f, a...)), "component", "badger")
}
