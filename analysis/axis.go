package analysis

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Palette are the report's series colours, in order: the Okabe–Ito palette
// (Okabe and Ito, "Color Universal Design", 2008), told apart under the
// common forms of colour blindness. A benchmark's section draws with them too.
var Palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

// Better and Worse colour a signed difference: Okabe–Ito blue and vermilion,
// not green and red, which colour-blind readers confuse.
const (
	Better = "#0072B2"
	Worse  = "#D55E00"
)

// Ticks are an axis's tick values: round numbers (1, 2 or 5 times a power of
// ten apart) that cover the data range.
type Ticks struct {
	Lo, Hi, Step float64
	decimals     int
}

// NiceTicks chooses about n round ticks that cover [lo, hi]: the axis then
// runs from the first tick to the last (Heckbert, "Nice numbers for graph
// labels", Graphics Gems, 1990).
func NiceTicks(lo, hi float64, n int) Ticks {
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi-lo < 1e-12 {
		lo, hi = lo-0.5, hi+0.5
	}
	step := niceNumber((hi-lo)/float64(max(1, n-1)), true)
	// A hair of tolerance keeps a bound that is a tick (1.0 from 0.1·10) from
	// adding one more.
	t := Ticks{Lo: math.Floor(lo/step+1e-9) * step, Hi: math.Ceil(hi/step-1e-9) * step, Step: step}
	t.decimals = max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	return t
}

// IntTicks are NiceTicks of whole numbers (episode numbers, stages).
func IntTicks(lo, hi, n int) Ticks {
	t := NiceTicks(float64(lo), float64(hi), n)
	if t.Step < 1 {
		t = Ticks{Lo: float64(lo), Hi: float64(hi), Step: 1}
	}
	return t
}

// niceNumber is a number of the form 1, 2 or 5 times a power of ten near x.
func niceNumber(x float64, round bool) float64 {
	exp := math.Floor(math.Log10(x))
	f := x / math.Pow(10, exp)
	var nice float64
	switch {
	case round && f < 1.5, !round && f <= 1:
		nice = 1
	case round && f < 3, !round && f <= 2:
		nice = 2
	case round && f < 7, !round && f <= 5:
		nice = 5
	default:
		nice = 10
	}
	return nice * math.Pow(10, exp)
}

// Values are the ticks from Lo to Hi.
func (t Ticks) Values() []float64 {
	var out []float64
	for i := 0; ; i++ {
		v := t.Lo + float64(i)*t.Step
		if v > t.Hi+t.Step*1e-6 {
			return out
		}
		if math.Abs(v) < t.Step*1e-9 {
			v = 0 // no "-0.0"
		}
		out = append(out, v)
	}
}

// Label prints a tick with as many decimals as its step needs.
func (t Ticks) Label(v float64) string { return strconv.FormatFloat(v, 'f', t.decimals, 64) }

// PValue prints a p-value the way papers do: "< 0.001" below a thousandth,
// three decimals otherwise.
func PValue(p float64) string {
	if math.IsNaN(p) {
		return "–"
	}
	if p < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// sequential is a colour of the viridis scale (perceptually uniform,
// sequential and colour-blind-safe; van der Walt and Smith, matplotlib, 2015)
// at x in [0, 1], interpolated between five of its stops.
func sequential(x float64) string {
	stops := [][3]float64{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}
	x = max(0, min(1, x)) * float64(len(stops)-1)
	i := min(int(x), len(stops)-2)
	f := x - float64(i)
	var c [3]int
	for k := range c {
		c[k] = int(math.Round(stops[i][k] + f*(stops[i+1][k]-stops[i][k])))
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", c[0], c[1], c[2])
}

// inkOn is the text colour readable on the sequential colour at x.
func inkOn(x float64) string {
	if x < 0.6 {
		return "#fff"
	}
	return "#000"
}

// ChartTitle writes a chart's title at the top of its SVG (y 16; leave the
// top 30 units free): its first line, and its accessible name. A benchmark's
// section titles its own charts with it.
func ChartTitle(b *strings.Builder, x int, title string) {
	t := template.HTMLEscapeString(title)
	fmt.Fprintf(b, `<title>%s</title><text class="title" x="%d" y="16" font-size="13" font-weight="600">%s</text>`, t, x, t)
}

// yLabel writes a y axis's name, turned along the axis.
func yLabel(b *strings.Builder, x, y int, name string) {
	fmt.Fprintf(b, `<text class="axis-label" x="%d" y="%d" font-size="12" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>`, x, y, x, y, template.HTMLEscapeString(name))
}
