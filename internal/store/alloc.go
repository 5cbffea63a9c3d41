package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	badger "github.com/dgraph-io/badger/v4"
)

// leaseStep is how many delivery IDs one durable lease write covers.
const leaseStep = 1024

// allocator hands out record seqs and delivery IDs under one short lock and
// tracks which allocations have finished, so readers only see a gap-free
// prefix: a record becomes visible once every commit that allocated an
// earlier seq has finished (succeeded or failed). Badger commits run outside
// the lock, so concurrent synced commits are group-committed.
type allocator struct {
	mu         sync.Mutex
	nextSeq    uint64    // next record seq to hand out
	nextID     uint64    // next delivery ID to hand out
	lease      uint64    // IDs below lease are covered by the durable lease
	pending    []*ticket // unfinished allocations, in allocation order
	visibleSeq uint64    // every seq <= visibleSeq is finished
	visibleID  uint64    // every ID <= visibleID is finished
	nextChg    uint64    // next journal number to hand out (journal.go)
	visibleChg uint64    // every journal entry <= visibleChg is finished
}

// ticket is one Commit's allocation.
type ticket struct {
	lastSeq, maxID, chg uint64
	done                bool
}

// recoverAllocator continues numbering after the last keys on disk.
func recoverAllocator(db *badger.DB) (*allocator, error) {
	a := &allocator{}
	err := db.View(func(txn *badger.Txn) error {
		a.visibleSeq = lastKeyNumber(txn, prefixLog)
		a.visibleID = lastKeyNumber(txn, prefixOut)
		a.visibleChg = lastKeyNumber(txn, prefixJournal)
		lease, err := readLease(txn)
		a.lease = lease
		return err
	})
	if err != nil {
		return nil, err
	}
	a.nextSeq = a.visibleSeq + 1
	a.nextChg = a.visibleChg + 1
	a.nextID = max(a.visibleID+1, a.lease)
	a.lease = max(a.lease, a.nextID)
	return a, nil
}

// lastKeyNumber returns the number in the last key under prefix, or 0.
func lastKeyNumber(txn *badger.Txn, prefix []byte) uint64 {
	o := badger.DefaultIteratorOptions
	o.Reverse, o.PrefetchValues, o.Prefix = true, false, prefix
	it := txn.NewIterator(o)
	defer it.Close()
	it.Seek(cat(prefix, u64(^uint64(0))))
	if !it.Valid() {
		return 0
	}
	return seqSuffix(it.Item().Key())
}

// readLease reads the durable delivery-ID lease, 0 if none.
func readLease(txn *badger.Txn) (uint64, error) {
	item, err := txn.Get(keyLease)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var lease uint64
	err = item.Value(func(v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("corrupt delivery lease (%d bytes)", len(v))
		}
		lease = binary.BigEndian.Uint64(v)
		return nil
	})
	return lease, err
}

// allocate assigns seqs to n records and IDs to the zero-ID deliveries in
// out (in place), and a journal number when chg. It returns the first seq
// and a ticket to finish (its chg the journal number), or nil when nothing
// was allocated.
func (a *allocator) allocate(db *badger.DB, n int, out []Delivery, chg bool) (uint64, *ticket, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	maxID, err := a.assignIDs(db, out)
	if err != nil {
		return 0, nil, err
	}
	first := a.nextSeq
	a.nextSeq += uint64(n)
	if n == 0 && len(out) == 0 && !chg {
		return first, nil, nil
	}
	t := &ticket{lastSeq: a.nextSeq - 1, maxID: maxID}
	if chg {
		t.chg = a.nextChg
		a.nextChg++
	}
	a.pending = append(a.pending, t)
	return first, t, nil
}

// restored accounts for records up to lastSeq and deliveries out (their
// IDs given) that Restore writes; finish the ticket once written.
func (a *allocator) restored(db *badger.DB, lastSeq uint64, out []Delivery) (*ticket, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	maxID, err := a.assignIDs(db, out)
	if err != nil {
		return nil, err
	}
	a.nextSeq = max(a.nextSeq, lastSeq+1)
	t := &ticket{lastSeq: lastSeq, maxID: maxID}
	a.pending = append(a.pending, t)
	return t, nil
}

// assignIDs numbers deliveries, extending the durable lease first if needed.
func (a *allocator) assignIDs(db *badger.DB, out []Delivery) (uint64, error) {
	next := a.nextID
	for _, d := range out {
		if d.ID >= next {
			next = d.ID + 1
		} else if d.ID == 0 {
			next++
		}
	}
	if next > a.lease {
		if err := writeLease(db, next+leaseStep); err != nil {
			return 0, err
		}
		a.lease = next + leaseStep
	}
	var maxID uint64
	for i := range out {
		if out[i].ID == 0 {
			out[i].ID = a.nextID
			a.nextID++
		} else if out[i].ID >= a.nextID {
			a.nextID = out[i].ID + 1
		}
		maxID = max(maxID, out[i].ID)
	}
	return maxID, nil
}

// writeLease durably records that IDs below lease may be in use.
func writeLease(db *badger.DB, lease uint64) error {
	return db.Update(func(txn *badger.Txn) error {
		return txn.Set(keyLease, u64(lease))
	})
}

// finish marks t finished and advances the visible prefix.
func (a *allocator) finish(t *ticket) {
	if t == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	t.done = true
	for len(a.pending) > 0 && a.pending[0].done {
		head := a.pending[0]
		a.pending[0] = nil
		a.pending = a.pending[1:]
		a.visibleSeq = max(a.visibleSeq, head.lastSeq)
		a.visibleID = max(a.visibleID, head.maxID)
		a.visibleChg = max(a.visibleChg, head.chg)
	}
}

// visibleJournal returns the highest journal number readers may see.
func (a *allocator) visibleJournal() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.visibleChg
}

// visible returns the highest seq and delivery ID readers may see.
func (a *allocator) visible() (seq, id uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.visibleSeq, a.visibleID
}

// release gives back unused leased IDs so numbering stays dense across restarts.
func (a *allocator) release(db *badger.DB) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lease == a.nextID {
		return nil
	}
	if err := writeLease(db, a.nextID); err != nil {
		return fmt.Errorf("store: release delivery IDs: %w", err)
	}
	a.lease = a.nextID
	return nil
}
