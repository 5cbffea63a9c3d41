package vt

import "strconv"

// Color is the colour of a cell's text or background. The zero value is
// the terminal's default colour. Otherwise the top byte tags the kind:
// IndexedColor values hold a palette index in the low 8 bits (0–7 the basic
// colours, 8–15 their bright forms, 16–255 the xterm colour cube and grey
// ramp) and RGBColor values hold 24-bit 0xRRGGBB in the low 24 bits.
type Color uint32

const (
	colorIndexed Color = 1 << 24
	colorRGB     Color = 2 << 24
	colorKind    Color = 0xff << 24
)

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

// IndexedColor returns palette colour i (0–255).
func IndexedColor(i uint8) Color { return colorIndexed | Color(i) }

// RGBColor returns a 24-bit colour.
func RGBColor(r, g, b uint8) Color {
	return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsDefault reports whether c is the default colour.
func (c Color) IsDefault() bool { return c == 0 }

// Index returns the palette index of an indexed colour.
func (c Color) Index() (uint8, bool) {
	if c&colorKind != colorIndexed {
		return 0, false
	}
	return uint8(c), true
}

// RGB returns the components of a 24-bit colour.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	if c&colorKind != colorRGB {
		return 0, 0, 0, false
	}
	return uint8(c >> 16), uint8(c >> 8), uint8(c), true
}

// Attr is a set of text attributes.
type Attr uint16

// The text attributes SGR sets.
const (
	Bold      Attr = 1 << iota // SGR 1
	Faint                      // SGR 2
	Italic                     // SGR 3
	Underline                  // SGR 4 (any underline style), 21
	Blink                      // SGR 5, 6
	Reverse                    // SGR 7
	Hidden                     // SGR 8
	Strike                     // SGR 9
)

// Style is the colours and attributes of a cell.
type Style struct {
	FG, BG Color // text and background colour
	Attrs  Attr  // text attributes
}

// visibleOnBlank reports whether a blank cell of this style looks
// different from a default blank cell.
func (s Style) visibleOnBlank() bool {
	return s.BG != 0 || s.Attrs&(Reverse|Underline|Strike) != 0
}

// appendColorParams appends the SGR parameters selecting c as foreground
// (base 30) or background (base 40).
func appendColorParams(b []byte, c Color, base int) []byte {
	switch c & colorKind {
	case colorIndexed:
		i := int(uint8(c))
		switch {
		case i < 8:
			return strconv.AppendInt(b, int64(base+i), 10)
		case i < 16:
			return strconv.AppendInt(b, int64(base+60+i-8), 10)
		}
		b = strconv.AppendInt(b, int64(base+8), 10)
		b = append(b, ";5;"...)
		return strconv.AppendInt(b, int64(i), 10)
	case colorRGB:
		b = strconv.AppendInt(b, int64(base+8), 10)
		b = append(b, ";2;"...)
		b = strconv.AppendInt(b, int64(uint8(c>>16)), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(uint8(c>>8)), 10)
		b = append(b, ';')
		return strconv.AppendInt(b, int64(uint8(c)), 10)
	}
	return strconv.AppendInt(b, int64(base+9), 10)
}

var attrOn = [...]struct {
	a  Attr
	on string
}{{Bold, "1"}, {Faint, "2"}, {Italic, "3"}, {Underline, "4"}, {Blink, "5"}, {Reverse, "7"}, {Hidden, "8"}, {Strike, "9"}}

func sep(b []byte) []byte {
	if len(b) > 0 {
		return append(b, ';')
	}
	return b
}

// appendStyleParams appends the SGR parameters that set s from the reset
// state (without the leading 0).
func appendStyleParams(b []byte, s Style) []byte {
	for _, a := range attrOn {
		if s.Attrs&a.a != 0 {
			b = append(sep(b), a.on...)
		}
	}
	if s.FG != 0 {
		b = appendColorParams(sep(b), s.FG, 30)
	}
	if s.BG != 0 {
		b = appendColorParams(sep(b), s.BG, 40)
	}
	return b
}

// appendSGR appends the shortest SGR sequence (of two candidates: changes
// only, or a reset followed by the new style) that turns style from into
// style to. It appends nothing if they are equal.
func appendSGR(b []byte, from, to Style) []byte {
	if from == to {
		return b
	}
	if to == (Style{}) {
		return append(b, "\x1b[m"...)
	}
	var diff, full [64]byte
	d := diff[:0]
	removed := from.Attrs &^ to.Attrs
	added := to.Attrs &^ from.Attrs
	if removed&(Bold|Faint) != 0 {
		d = append(sep(d), "22"...)
		added |= to.Attrs & (Bold | Faint)
	}
	for _, off := range [...]struct {
		a   Attr
		off string
	}{{Italic, "23"}, {Underline, "24"}, {Blink, "25"}, {Reverse, "27"}, {Hidden, "28"}, {Strike, "29"}} {
		if removed&off.a != 0 {
			d = append(sep(d), off.off...)
		}
	}
	for _, a := range attrOn {
		if added&a.a != 0 {
			d = append(sep(d), a.on...)
		}
	}
	if from.FG != to.FG {
		d = appendColorParams(sep(d), to.FG, 30)
	}
	if from.BG != to.BG {
		d = appendColorParams(sep(d), to.BG, 40)
	}
	f := appendStyleParams(append(full[:0], '0'), to)
	if len(f) < len(d) {
		d = f
	}
	b = append(b, "\x1b["...)
	b = append(b, d...)
	return append(b, 'm')
}

// paletteRGB returns the xterm default RGB value of palette colour i.
func paletteRGB(i uint8) (r, g, b uint8) {
	switch {
	case i < 16:
		c := basic16[i]
		return c[0], c[1], c[2]
	case i < 232:
		i -= 16
		lv := func(v uint8) uint8 {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return lv(i / 36), lv(i / 6 % 6), lv(i % 6)
	}
	v := 8 + 10*(i-232)
	return v, v, v
}

var basic16 = [16][3]uint8{
	{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0}, {0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
	{127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
}
