package store

import (
	"encoding/binary"
	"time"
)

// Key layout. Every key lives in one Badger keyspace, namespaced by prefix:
//
//	log/<seq:8 BE>                          → JSON Record (append-only audit log)
//	ix/agent/<esc(name)>\x00<seq:8 BE>      → <time:8> (Record.Agent, .From and each .To)
//	ix/task/<esc(task)>\x00<seq:8 BE>       → <time:8>
//	ix/type/<esc(type)>\x00<seq:8 BE>       → <time:8>
//	ix/kind/<esc(kind)>\x00<seq:8 BE>       → <time:8>
//	ix/time/<unixnano:8 BE, sign-flipped>/<seq:8 BE> → empty
//	out/<id:8 BE>                           → JSON Delivery (the outbox)
//	meta/<key>                              → raw value (Batch.Meta)
//	sys/delivery-lease                      → 8 BE: delivery IDs below it may be in use
//
// Equality indexes are sorted by seq within one value, so a query can seek
// straight to AfterSeq and intersect several indexes with a merge join.
// esc() makes a name free of \x00 (0x00 → 0x01 0x02, 0x01 → 0x01 0x03), so the
// \x00 separator is unambiguous; names are cut to maxIndexName bytes first,
// which can only widen a posting list, never drop a match: every candidate is
// checked against the full record. The time key flips the sign bit of
// UnixNano so that times before 1970 sort before later ones; a posting's
// value is its record's time in the same encoding (empty in stores written
// before postings carried it: such a posting's record is loaded instead).
// The meta indexes (MetaIndex) are laid out in metaindex.go.
var (
	prefixLog   = []byte("log/")
	prefixOut   = []byte("out/")
	prefixMeta  = []byte("meta/")
	prefixTime  = []byte("ix/time/")
	prefixAgent = []byte("ix/agent/")
	prefixTask  = []byte("ix/task/")
	prefixType  = []byte("ix/type/")
	prefixKind  = []byte("ix/kind/")
	keyLease    = []byte("sys/delivery-lease")
)

// maxIndexName bounds the part of a name that goes into an index key.
const maxIndexName = 256

// u64 encodes v big-endian.
func u64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

// cat concatenates byte slices into a new slice.
func cat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// logKey is the key of the record with the given seq.
func logKey(seq uint64) []byte { return cat(prefixLog, u64(seq)) }

// outKey is the key of the delivery with the given ID.
func outKey(id uint64) []byte { return cat(prefixOut, u64(id)) }

// metaKey is the key of a Batch.Meta entry.
func metaKey(k string) []byte { return cat(prefixMeta, []byte(k)) }

// escapeName makes name safe to embed before a \x00 separator.
func escapeName(name string) []byte {
	if len(name) > maxIndexName {
		name = name[:maxIndexName]
	}
	return escapeAll(name)
}

// postingPrefix is the prefix of every index key for one indexed value.
func postingPrefix(ix []byte, name string) []byte {
	return cat(ix, escapeName(name), []byte{0})
}

// postingKey is one index entry: value name points at record seq.
func postingKey(ix []byte, name string, seq uint64) []byte {
	return cat(postingPrefix(ix, name), u64(seq))
}

// timeBytes encodes t so that byte order is time order.
func timeBytes(t time.Time) []byte {
	return u64(uint64(t.UnixNano()) ^ (1 << 63))
}

// timeKey is the time-index entry for a record.
func timeKey(t time.Time, seq uint64) []byte {
	return cat(prefixTime, timeBytes(t), []byte{'/'}, u64(seq))
}

// seqSuffix reads the big-endian number in the last 8 bytes of key.
func seqSuffix(key []byte) uint64 {
	if len(key) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(key[len(key)-8:])
}
