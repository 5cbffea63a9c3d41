package usage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// A read-only reader of one table of an SQLite 3 database file, with its
// write-ahead log (OpenCode keeps its sessions in one, in WAL mode): enough
// to walk a table's rows, never to write. Anything it cannot read is an
// error (ErrSQLite), never a panic; the walk is bounded in pages, rows and
// bytes, whatever the file holds.

// ErrSQLite is a database file this reader cannot read.
var ErrSQLite = errors.New("unreadable SQLite database")

// Bounds of one walk.
const (
	sqliteMaxPages   = 1 << 16  // pages of one table's b-tree visited
	sqliteMaxPayload = 16 << 20 // bytes of one row
	sqliteMaxWAL     = 1 << 30  // bytes of a write-ahead log read
	sqliteMaxRead    = 64 << 20 // bytes of pages read in one walk of the database
)

// sqliteDB is an open database file with its log's newest committed pages.
type sqliteDB struct {
	f, wal   io.ReaderAt
	walSize  int64
	closers  []io.Closer
	pageSize int
	usable   int
	frames   map[uint32]int64 // page number → its newest committed copy's offset in the log
	nPages   uint32           // the database's size in pages
	read     int64            // bytes of pages read so far (sqliteMaxRead)
}

func sqliteOpen(path string) (*sqliteDB, error) {
	f, err := fsutil.OpenRegular(path) // never a FIFO: the agent can write there
	if err != nil {
		return nil, err
	}
	var wal io.ReaderAt
	var walSize int64
	closers := []io.Closer{f}
	if w, err := fsutil.OpenRegular(path + "-wal"); err == nil {
		closers = append(closers, w)
		if fi, err := w.Stat(); err == nil {
			wal, walSize = w, fi.Size()
		}
	}
	db, err := sqliteFrom(f, wal, walSize)
	if err != nil {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	db.closers = closers
	return db, nil
}

// sqliteFrom reads a database from f and its log from wal (walSize bytes;
// nil when it has none).
func sqliteFrom(f, wal io.ReaderAt, walSize int64) (*sqliteDB, error) {
	db := &sqliteDB{f: f, wal: wal, walSize: walSize}
	if err := db.header(); err != nil {
		return nil, err
	}
	if wal != nil {
		if err := db.readWAL(); err != nil {
			return nil, err
		}
	}
	return db, nil
}

func (db *sqliteDB) close() {
	for _, c := range db.closers {
		c.Close()
	}
}

func (db *sqliteDB) header() error {
	var h [100]byte
	if _, err := db.f.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("%w: its header: %v", ErrSQLite, err)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return fmt.Errorf("%w: not an SQLite 3 file", ErrSQLite)
	}
	db.pageSize = int(binary.BigEndian.Uint16(h[16:]))
	if db.pageSize == 1 {
		db.pageSize = 65536
	}
	if db.pageSize < 512 || db.pageSize&(db.pageSize-1) != 0 {
		return fmt.Errorf("%w: page size %d", ErrSQLite, db.pageSize)
	}
	db.usable = db.pageSize - int(h[20])
	if db.usable < 480 {
		return fmt.Errorf("%w: usable page size %d", ErrSQLite, db.usable)
	}
	if enc := binary.BigEndian.Uint32(h[56:]); enc > 1 {
		return fmt.Errorf("%w: text encoding %d (only UTF-8 is read)", ErrSQLite, enc)
	}
	db.nPages = binary.BigEndian.Uint32(h[28:])
	return nil
}

// readWAL indexes the log's frames up to its last valid commit: a frame
// counts when its salts are the header's and the running checksum holds.
func (db *sqliteDB) readWAL() error {
	size := min(db.walSize, sqliteMaxWAL)
	var h [32]byte
	if _, err := db.wal.ReadAt(h[:], 0); err != nil {
		return nil // empty or short: no frames
	}
	magic := binary.BigEndian.Uint32(h[0:])
	if magic != 0x377f0682 && magic != 0x377f0683 {
		return nil
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	if ps := int(binary.BigEndian.Uint32(h[8:])); ps != db.pageSize {
		return nil // a log of another page size: not this database's
	}
	s0, s1 := walChecksum(order, h[:24], 0, 0)
	if s0 != binary.BigEndian.Uint32(h[24:]) || s1 != binary.BigEndian.Uint32(h[28:]) {
		return nil
	}
	salt1, salt2 := binary.BigEndian.Uint32(h[16:]), binary.BigEndian.Uint32(h[20:])
	pending := map[uint32]int64{}
	committed := map[uint32]int64{}
	frame := make([]byte, 24+db.pageSize)
	for off := int64(32); off+int64(len(frame)) <= size; off += int64(len(frame)) {
		if _, err := db.wal.ReadAt(frame, off); err != nil {
			break
		}
		if binary.BigEndian.Uint32(frame[8:]) != salt1 || binary.BigEndian.Uint32(frame[12:]) != salt2 {
			break
		}
		s0, s1 = walChecksum(order, frame[:8], s0, s1)
		s0, s1 = walChecksum(order, frame[24:], s0, s1)
		if s0 != binary.BigEndian.Uint32(frame[16:]) || s1 != binary.BigEndian.Uint32(frame[20:]) {
			break
		}
		pending[binary.BigEndian.Uint32(frame[0:])] = off + 24
		if commit := binary.BigEndian.Uint32(frame[4:]); commit != 0 {
			for p, o := range pending {
				committed[p] = o
			}
			clear(pending)
			db.nPages = commit
		}
	}
	db.frames = committed
	return nil
}

// walChecksum continues the log's checksum over b (a multiple of 8 bytes).
func walChecksum(order binary.ByteOrder, b []byte, s0, s1 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}

// page reads page n (from 1), the log's copy when it has one.
func (db *sqliteDB) page(n uint32) ([]byte, error) {
	if n == 0 || (db.nPages != 0 && n > db.nPages) {
		return nil, fmt.Errorf("%w: page %d out of range", ErrSQLite, n)
	}
	if db.read += int64(db.pageSize); db.read > sqliteMaxRead {
		return nil, fmt.Errorf("%w: more than %d MiB of pages read", ErrSQLite, sqliteMaxRead>>20)
	}
	b := make([]byte, db.pageSize)
	var err error
	if off, ok := db.frames[n]; ok {
		_, err = db.wal.ReadAt(b, off)
	} else {
		_, err = db.f.ReadAt(b, int64(n-1)*int64(db.pageSize))
	}
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%w: page %d: %v", ErrSQLite, n, err)
	} else if err == io.EOF {
		return nil, fmt.Errorf("%w: page %d beyond the file", ErrSQLite, n)
	}
	return b, nil
}

// rows calls fn with each row of the table b-tree rooted at root, in
// rowid order; fn returning false stops the walk.
func (db *sqliteDB) rows(root uint32, fn func(values []any) bool) error {
	visited := map[uint32]bool{}
	var walk func(n uint32) (bool, error)
	walk = func(n uint32) (bool, error) {
		if visited[n] || len(visited) >= sqliteMaxPages {
			return false, fmt.Errorf("%w: a b-tree loops or is too large (page %d)", ErrSQLite, n)
		}
		visited[n] = true
		p, err := db.page(n)
		if err != nil {
			return false, err
		}
		h := 0
		if n == 1 {
			h = 100
		}
		if h+8 > len(p) {
			return false, fmt.Errorf("%w: page %d too short", ErrSQLite, n)
		}
		kind := p[h]
		cells := int(binary.BigEndian.Uint16(p[h+3:]))
		ptrs := h + 8
		if kind == 0x05 {
			ptrs = h + 12
		}
		if ptrs+2*cells > len(p) {
			return false, fmt.Errorf("%w: page %d lists too many cells", ErrSQLite, n)
		}
		switch kind {
		case 0x05: // interior table page: children, then the right-most
			for i := 0; i < cells; i++ {
				c := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
				if c+4 > len(p) {
					return false, fmt.Errorf("%w: page %d cell %d out of range", ErrSQLite, n, i)
				}
				if more, err := walk(binary.BigEndian.Uint32(p[c:])); !more || err != nil {
					return more, err
				}
			}
			return walk(binary.BigEndian.Uint32(p[h+8:]))
		case 0x0d: // leaf table page: the rows
			for i := 0; i < cells; i++ {
				c := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
				payload, err := db.cell(p, c)
				if err != nil {
					return false, fmt.Errorf("%w (page %d cell %d)", err, n, i)
				}
				values, err := sqliteRecord(payload)
				if err != nil {
					return false, fmt.Errorf("%w (page %d cell %d)", err, n, i)
				}
				if !fn(values) {
					return false, nil
				}
			}
			return true, nil
		}
		return false, fmt.Errorf("%w: page %d is not a table page (type %#x)", ErrSQLite, n, kind)
	}
	_, err := walk(root)
	return err
}

// cell is the payload of the leaf table cell at offset c of page p,
// followed into its overflow pages.
func (db *sqliteDB) cell(p []byte, c int) ([]byte, error) {
	if c >= len(p) {
		return nil, fmt.Errorf("%w: a cell out of its page", ErrSQLite)
	}
	size, n := sqliteVarint(p[c:])
	if n == 0 || size < 0 || size > sqliteMaxPayload {
		return nil, fmt.Errorf("%w: a row's size", ErrSQLite)
	}
	c += n
	if _, n = sqliteVarint(p[c:]); n == 0 { // the rowid
		return nil, fmt.Errorf("%w: a rowid", ErrSQLite)
	}
	c += n
	u := db.usable
	local := int(size)
	if x := u - 35; local > x {
		m := (u-12)*32/255 - 23
		k := m + (int(size)-m)%(u-4)
		local = m
		if k <= x {
			local = k
		}
	}
	if c+local > len(p) {
		return nil, fmt.Errorf("%w: a row beyond its page", ErrSQLite)
	}
	out := append([]byte(nil), p[c:c+local]...) // grown as pages are read, not as the cell claims
	if local == int(size) {
		return out, nil
	}
	if c+local+4 > len(p) {
		return nil, fmt.Errorf("%w: a row's overflow page", ErrSQLite)
	}
	next := binary.BigEndian.Uint32(p[c+local:])
	for seen := 0; len(out) < int(size); seen++ {
		if next == 0 || seen > sqliteMaxPayload/(u-4)+1 {
			return nil, fmt.Errorf("%w: a row's overflow chain ends early", ErrSQLite)
		}
		op, err := db.page(next)
		if err != nil {
			return nil, err
		}
		next = binary.BigEndian.Uint32(op)
		take := min(int(size)-len(out), u-4)
		out = append(out, op[4:4+take]...)
	}
	return out, nil
}

// sqliteVarint decodes a varint at the start of b: the value and its
// length, 0 when b ends first.
func sqliteVarint(b []byte) (int64, int) {
	var v uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0
		}
		if i == 8 {
			return int64(v<<8 | uint64(b[i])), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return int64(v), i + 1
		}
	}
	return 0, 0
}

// sqliteRecord decodes a record: int64, float64, string, []byte or nil
// per column.
func sqliteRecord(b []byte) ([]any, error) {
	hsize, n := sqliteVarint(b)
	if n == 0 || hsize < int64(n) || hsize > int64(len(b)) {
		return nil, fmt.Errorf("%w: a record's header", ErrSQLite)
	}
	var types []int64
	for i := n; i < int(hsize); {
		t, m := sqliteVarint(b[i:hsize])
		if m == 0 || t < 0 {
			return nil, fmt.Errorf("%w: a record's column types", ErrSQLite)
		}
		types = append(types, t)
		i += m
	}
	body := b[hsize:]
	out := make([]any, 0, len(types))
	for _, t := range types {
		size := 0
		switch {
		case t >= 1 && t <= 4:
			size = int(t)
		case t == 5:
			size = 6
		case t == 6 || t == 7:
			size = 8
		case t == 10 || t == 11:
			return nil, fmt.Errorf("%w: a reserved column type", ErrSQLite)
		case t >= 12:
			size = int((t - 12) / 2)
		}
		if size > len(body) {
			return nil, fmt.Errorf("%w: a record shorter than its header says", ErrSQLite)
		}
		v := body[:size]
		body = body[size:]
		switch {
		case t == 0:
			out = append(out, nil)
		case t <= 6:
			var x int64
			if v[0]&0x80 != 0 {
				x = -1
			}
			for _, c := range v {
				x = x<<8 | int64(c)
			}
			out = append(out, x)
		case t == 7:
			out = append(out, math.Float64frombits(binary.BigEndian.Uint64(v)))
		case t == 8:
			out = append(out, int64(0))
		case t == 9:
			out = append(out, int64(1))
		case t%2 == 0:
			out = append(out, append([]byte(nil), v...))
		default:
			out = append(out, string(v))
		}
	}
	return out, nil
}

// sqliteTable finds a table's root page and column names in the schema
// (sqlite_master, page 1).
func (db *sqliteDB) sqliteTable(name string) (root uint32, columns []string, err error) {
	err = db.rows(1, func(v []any) bool {
		if len(v) < 5 || v[0] != "table" || v[1] != name {
			return true
		}
		r, _ := v[3].(int64)
		sql, _ := v[4].(string)
		if r > 0 && r <= math.MaxUint32 {
			root, columns = uint32(r), sqliteColumns(sql)
		}
		return false
	})
	if err == nil && root == 0 {
		err = fmt.Errorf("%w: no table %s", ErrSQLite, name)
	}
	return root, columns, err
}

// sqliteColumns lists the column names of a CREATE TABLE statement, in
// order (table constraints left out).
func sqliteColumns(sql string) []string {
	open, end := strings.IndexByte(sql, '('), strings.LastIndexByte(sql, ')')
	if open < 0 || end <= open {
		return nil
	}
	var cols []string
	depth, start := 0, open+1
	body := sql[:end]
	for i := open + 1; i <= len(body); i++ {
		if i < len(body) {
			switch body[i] {
			case '(':
				depth++
				continue
			case ')':
				depth--
				continue
			case ',':
				if depth != 0 {
					continue
				}
			default:
				continue
			}
		}
		def := strings.TrimSpace(body[start:i])
		start = i + 1
		word := def
		if j := strings.IndexAny(def, " \t\r\n"); j >= 0 {
			word = def[:j]
		}
		switch strings.ToUpper(word) {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "":
			continue
		}
		cols = append(cols, strings.Trim(word, "`\"[]'"))
	}
	return cols
}
