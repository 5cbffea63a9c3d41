package store

import (
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// probeSteps is how many entries a cursor of a join steps over before it
// seeks instead: a few steps are much cheaper than a seek when the lists
// are about as dense, and a seek bounds the cost when they are not.
const probeSteps = 8

// sampleSteps is how many entries of each posting list a join reads to
// find the sparsest, which then drives it.
const sampleSteps = 16

// joinPostings visits the seqs in [from, upper] present in every posting
// list, ascending (descending when reverse), with the time the driving
// list's posting carries (nil if none). It is a leapfrog merge join: the
// sparsest list drives (found by sampling each), the others step or seek to
// its candidate, so the cost follows the shortest list. keep (may be nil)
// rejects a time: a driving posting whose time it rejects is passed over
// without touching the other lists or loading the record.
func joinPostings(txn *badger.Txn, prefixes [][]byte, from, upper uint64, reverse bool,
	keep func(at []byte) bool, visit func(seq uint64, at []byte) error) error {
	j := &join{prefixes: slices.Clone(prefixes), reverse: reverse, from: from, upper: upper}
	for _, p := range j.prefixes {
		it := postingIterator(txn, p, reverse)
		defer it.Close()
		j.its = append(j.its, it)
	}
	j.pickDriver()
	target := j.start()
	var at []byte
	for j.inRange(target) {
		if !j.moveTo(0, target) {
			return nil
		}
		d := j.its[0]
		for keep != nil && d.Valid() {
			if t := timeOf(d.Item(), &at); t == nil || keep(t) {
				break // in the range, or a posting that carries no time
			}
			d.Next()
		}
		if !d.Valid() {
			return nil
		}
		seq := seqSuffix(d.Item().Key())
		if !j.inRange(seq) {
			return nil
		}
		target = seq
		agreed := true
		for i := 1; i < len(j.its) && agreed; i++ {
			if !j.moveTo(i, target) {
				return nil
			}
			if s := seqSuffix(j.its[i].Item().Key()); s != target {
				target, agreed = s, false // the driver catches up next round
			}
		}
		if !agreed {
			continue
		}
		if err := visit(seq, timeOf(d.Item(), &at)); err != nil {
			return err
		}
		if seq == j.end() {
			return nil
		}
		target = j.after(seq)
	}
	return nil
}

// join is the state of joinPostings.
type join struct {
	its         []*badger.Iterator
	prefixes    [][]byte
	reverse     bool
	from, upper uint64
}

// start and end are the first and last seq in scan order.
func (j *join) start() uint64 {
	if j.reverse {
		return j.upper
	}
	return j.from
}

func (j *join) end() uint64 {
	if j.reverse {
		return j.from
	}
	return j.upper
}

// after is the seq following seq in scan order.
func (j *join) after(seq uint64) uint64 {
	if j.reverse {
		return seq - 1
	}
	return seq + 1
}

// inRange reports whether seq is within [from, upper].
func (j *join) inRange(seq uint64) bool { return seq >= j.from && seq <= j.upper }

// past reports whether a is beyond b in scan order.
func (j *join) past(a, b uint64) bool {
	if j.reverse {
		return a < b
	}
	return a > b
}

// moveTo puts list i on the first seq at or beyond target in scan order,
// stepping a few entries before it seeks; it reports whether one is left.
// A list already at or beyond target stays: targets only move forward.
func (j *join) moveTo(i int, target uint64) bool {
	it := j.its[i]
	for step := 0; it.Valid(); step++ {
		seq := seqSuffix(it.Item().Key())
		if seq == target || j.past(seq, target) {
			return true
		}
		if step == probeSteps {
			break
		}
		it.Next()
	}
	it.Seek(cat(j.prefixes[i], u64(target)))
	return it.Valid()
}

// pickDriver reads a few postings of each list from the start and moves
// the sparsest (the one whose entries cover the most seqs, or that ends
// first) to the front; then it rewinds every list.
func (j *join) pickDriver() {
	if len(j.its) < 2 {
		return
	}
	best, bestSpan := 0, uint64(0)
	for i, it := range j.its {
		var span uint64
		it.Seek(cat(j.prefixes[i], u64(j.start())))
		for n := 0; ; n++ {
			if !it.Valid() {
				span = ^uint64(0) // fewer than sampleSteps left: the sparsest there is
				break
			}
			seq := seqSuffix(it.Item().Key())
			span = max(seq, j.start()) - min(seq, j.start())
			if n == sampleSteps {
				break
			}
			it.Next()
		}
		if span > bestSpan {
			best, bestSpan = i, span
		}
	}
	j.its[0], j.its[best] = j.its[best], j.its[0]
	j.prefixes[0], j.prefixes[best] = j.prefixes[best], j.prefixes[0]
	for i, it := range j.its {
		it.Seek(cat(j.prefixes[i], u64(j.start())))
	}
}

// timeOf returns the time a posting carries, read into *buf, or nil.
func timeOf(item *badger.Item, buf *[]byte) []byte {
	if item.ValueSize() != 8 {
		return nil
	}
	v, err := item.ValueCopy((*buf)[:0])
	if err != nil {
		return nil
	}
	*buf = v
	return v
}
