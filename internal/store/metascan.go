package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// MetaScan calls fn for each entry of an indexed meta prefix matching q, in
// Order (then key) order, or latest first with q.Reverse, from one
// consistent snapshot. It reads only index entries: each condition is the
// union of its posting lists, the sparsest condition (found by sampling)
// drives, and the others are checked on each of its entries, which carry
// every indexed and covered value; a time range is one slice of every list.
// MetaEntry.Load reads the value only when asked. It fails with
// ErrNotIndexed when the prefix has no finished index (the caller may then
// read the values with MetaPrefix). fn gets the same *MetaEntry each time,
// updated: copy what it keeps. An error from fn stops the scan and is
// returned.
func (s *Store) MetaScan(q MetaQuery, fn func(*MetaEntry) error) error {
	ix := s.registry()[q.Prefix]
	if ix == nil || !ix.ready {
		return fmt.Errorf("%w: %q", ErrNotIndexed, q.Prefix)
	}
	for _, c := range q.Where {
		if len(c.Fields) == 0 || len(c.Values) == 0 {
			return fmt.Errorf("%w: a condition needs fields and values", ErrBadIndex)
		}
		for _, f := range c.Fields {
			if !ix.indexed(f) {
				return fmt.Errorf("%w: %q is not an indexed field of %q (indexed: %v)", ErrBadIndex, f, q.Prefix, ix.spec.Fields)
			}
		}
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	err := s.db.View(func(txn *badger.Txn) error { return metaScanTxn(txn, ix, q, fn) })
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// metaScanTxn runs q in txn.
func metaScanTxn(txn *badger.Txn, ix *metaIndex, q MetaQuery, fn func(*MetaEntry) error) error {
	d := direction(q.Reverse)
	var conds []cursor
	for _, c := range q.Where {
		var lists []cursor
		for _, f := range c.Fields {
			for _, v := range c.Values {
				lists = append(lists, newPostingCursor(txn, ix.postingPrefix(f, v), d))
			}
		}
		conds = append(conds, newUnion(lists, d))
	}
	if len(conds) == 0 {
		conds = append(conds, newPostingCursor(txn, ix.postingPrefix("", ""), d))
	}
	since, until := orderBytes(q.Since), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if !q.Until.IsZero() {
		until = orderBytes(q.Until)
	}
	start := since
	if d.reverse {
		start = bytes.Repeat([]byte{0xff}, 64) // past every suffix
		if !q.Until.IsZero() {
			start = until
		}
	}
	// The sparsest condition drives; every entry carries the full values,
	// so the other conditions are checked on it (matchConds) without
	// walking their lists.
	c := sparsest(conds, start, d)
	defer c.close()
	e := &MetaEntry{ix: ix, txn: txn}
	seen := 0
	for c.seek(start); c.valid(); c.next() {
		sfx := c.suffix()
		at := sfx[:8]
		early, late := bytes.Compare(at, since) < 0, !q.Until.IsZero() && bytes.Compare(at, until) >= 0
		if early || late {
			if early && d.reverse || late && !d.reverse {
				return nil // past the range
			}
			continue
		}
		if err := c.item().Value(func(v []byte) error {
			e.setTuple(v)
			return nil
		}); err != nil {
			return err
		}
		if !matchConds(ix, e, q.Where) {
			continue // a cut name collided, or a union's duplicate
		}
		e.Key = q.Prefix + string(sfx[8:])
		e.Order = orderTime(at)
		if err := fn(e); err != nil {
			return err
		}
		if seen++; q.Limit > 0 && seen >= q.Limit {
			return errStop
		}
	}
	return nil
}

// matchConds checks the conditions against an entry's full values.
func matchConds(ix *metaIndex, e *MetaEntry, conds []MetaCond) bool {
	for _, c := range conds {
		ok := false
		for _, f := range c.Fields {
			v := e.field(ix.pos(f))
			if slices.ContainsFunc(c.Values, func(want string) bool { return string(v) == want }) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// scanDir is the direction of a scan over sorted suffixes.
type scanDir struct{ reverse bool }

// direction returns the scan direction.
func direction(reverse bool) scanDir { return scanDir{reverse} }

// before reports whether suffix a comes before b in this direction.
func (o scanDir) before(a, b []byte) bool {
	if o.reverse {
		return bytes.Compare(a, b) > 0
	}
	return bytes.Compare(a, b) < 0
}

// cursor walks the suffixes (order bytes then key suffix) of index entries.
type cursor interface {
	// seek moves to the first suffix at or after target in scan order.
	seek(target []byte)
	// next moves to the following distinct suffix.
	next()
	valid() bool
	// suffix is the current suffix, valid until the cursor moves.
	suffix() []byte
	// item is the current entry.
	item() *badger.Item
	close()
}

// postingCursor walks one posting list.
type postingCursor struct {
	it     *badger.Iterator
	prefix []byte
}

func newPostingCursor(txn *badger.Txn, prefix []byte, d scanDir) *postingCursor {
	return &postingCursor{it: postingIterator(txn, prefix, d.reverse), prefix: prefix}
}

func (p *postingCursor) seek(target []byte) { p.it.Seek(cat(p.prefix, target)) }
func (p *postingCursor) next()              { p.it.Next() }
func (p *postingCursor) valid() bool        { return p.it.Valid() }
func (p *postingCursor) suffix() []byte     { return p.it.Item().Key()[len(p.prefix):] }
func (p *postingCursor) item() *badger.Item { return p.it.Item() }
func (p *postingCursor) close()             { p.it.Close() }

// union walks the distinct suffixes of any of its lists.
type union struct {
	lists []cursor
	d     scanDir
	cur   cursor // the list at the current suffix, nil when done
}

// newUnion returns the union of lists (the list itself when one).
func newUnion(lists []cursor, d scanDir) cursor {
	if len(lists) == 1 {
		return lists[0]
	}
	return &union{lists: lists, d: d}
}

func (u *union) pick() {
	u.cur = nil
	for _, l := range u.lists {
		if l.valid() && (u.cur == nil || u.d.before(l.suffix(), u.cur.suffix())) {
			u.cur = l
		}
	}
}

func (u *union) seek(target []byte) {
	for _, l := range u.lists {
		l.seek(target)
	}
	u.pick()
}

func (u *union) next() {
	at := slices.Clone(u.cur.suffix())
	for _, l := range u.lists {
		if l.valid() && bytes.Equal(l.suffix(), at) {
			l.next()
		}
	}
	u.pick()
}

func (u *union) valid() bool        { return u.cur != nil }
func (u *union) suffix() []byte     { return u.cur.suffix() }
func (u *union) item() *badger.Item { return u.cur.item() }
func (u *union) close() {
	for _, l := range u.lists {
		l.close()
	}
}

// sparsest returns the cursor whose entries, read from start, cover the
// widest span (or that ends first), and closes the others.
func sparsest(cs []cursor, start []byte, d scanDir) cursor {
	if len(cs) == 1 {
		return cs[0]
	}
	best, bestEnded := -1, false
	var bestAt []byte
	for i, c := range cs {
		c.seek(start)
		for n := 0; n < sampleSteps && c.valid(); n++ {
			c.next()
		}
		ended := !c.valid()
		var at []byte
		if !ended {
			at = slices.Clone(c.suffix())
		}
		if best < 0 || ended && !bestEnded || !ended && !bestEnded && d.before(bestAt, at) {
			best, bestEnded, bestAt = i, ended, at
		}
	}
	for i, c := range cs {
		if i != best {
			c.close()
		}
	}
	return cs[best]
}
