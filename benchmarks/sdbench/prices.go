package sdbench

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/textmatch"
)

// VisitUSD is the price of one physician visit: "a fixed cost of $300 per
// visit" (Nori et al. 2025, §2 "Estimating costs"). A visit holds a run of
// consecutive questions and examination findings and ends when a
// diagnostic test is requested (§3).
const VisitUSD = 300

// FeeSchedule is a public source the price table takes amounts from.
type FeeSchedule struct {
	Key  string // as the table's sources column names it
	Name string
	File string
	Year int
	// Rule is how a code's amount is read from the file.
	Rule string
}

// Schedules are the table's sources: CMS's two national fee schedules for
// 2025, US government works in the public domain. The paper priced CPT
// codes from a large health system's 2023 price-transparency file (§2),
// which is not public; these are the public stand-in (clinevo's choice).
var Schedules = []FeeSchedule{
	{Key: "CLFS", Name: "CMS Clinical Laboratory Fee Schedule, April 2025 release (25CLABQ2)", File: "CLFS 2025 Q2V1.csv", Year: 2025,
		Rule: "RATE of the code's line without a modifier"},
	{Key: "PFS", Name: "CMS National Physician Fee Schedule Relative Value File, October 2025 release (RVU25D)", File: "PPRRVU2025_Oct.csv", Year: 2025,
		Rule: "NON-FACILITY TOTAL RVU of the code's global line times the conversion factor 32.3465, to the cent"},
}

// Code is one billing code of a priced test with its amount.
type Code struct {
	HCPCS    string  `json:"hcpcs"`
	USD      float64 `json:"usd"`
	Schedule string  `json:"schedule"`
}

// PriceRow is one test of the table: the names an order is matched by and
// the codes it is billed under (several for a composite order, §2: "the
// system was able to assign multiple CPT codes").
type PriceRow struct {
	Name    string
	Aliases []string
	Codes   []Code
}

// USD is the row's price: the sum of its codes' amounts.
func (r PriceRow) USD() float64 {
	sum := 0.0
	for _, c := range r.Codes {
		sum += c.USD
	}
	return round(sum)
}

// PriceTable is SDBench's test prices as data (prices.csv), matched through
// a catalog of the rows' names and aliases.
type PriceTable struct {
	Rows     []PriceRow
	cat      *catalog.Catalog
	byName   map[string]int
	phrases  []phrase
	fallback map[catalog.Category]float64
	median   float64
}

// phrase is a catalog key an order's text may hold, as words.
type phrase struct {
	words []string
	row   int
}

// Pricing is what an order costs and why: the rows it matched, with their
// codes, or none (Matched false) and the fallback price.
type Pricing struct {
	Rows    []string `json:"rows,omitempty"`
	Codes   []string `json:"codes,omitempty"`
	USD     float64  `json:"usd"`
	Matched bool     `json:"matched"`
}

//go:embed prices.csv
var pricesCSV []byte

// Prices is the shipped table; TestPriceTable checks every row.
var Prices = mustPrices(pricesCSV)

func mustPrices(b []byte) PriceTable {
	t, err := ReadPrices(bytes.NewReader(b), "prices.csv")
	if err != nil {
		panic(err) // the embedded table is checked by TestPriceTable
	}
	return t
}

// pricesHeader is the table's header row.
var pricesHeader = []string{"name", "aliases", "codes", "fees", "sources"}

// ReadPrices reads a price table (lines starting with # are comments);
// the error names the file, the line and the field.
func ReadPrices(r io.Reader, name string) (PriceTable, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // checked below, with the line and what a row holds
	var t PriceTable
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return PriceTable{}, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		switch {
		case first && !slices.Equal(rec, pricesHeader):
			return PriceTable{}, fmt.Errorf("%s:%d: header %q, want %q", name, line, rec, pricesHeader)
		case first:
			continue
		case len(rec) != len(pricesHeader):
			return PriceTable{}, fmt.Errorf("%s:%d: %d fields, want %d (%s)", name, line, len(rec), len(pricesHeader), strings.Join(pricesHeader, ", "))
		}
		row, err := readRow(rec)
		if err != nil {
			return PriceTable{}, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		t.Rows = append(t.Rows, row)
	}
	if err := t.index(); err != nil {
		return PriceTable{}, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// readRow reads one row: codes, fees and sources are "+"-joined and align.
func readRow(rec []string) (PriceRow, error) {
	row := PriceRow{Name: strings.TrimSpace(rec[0])}
	if row.Name == "" {
		return PriceRow{}, errors.New("field name: required")
	}
	for _, a := range strings.Split(rec[1], ";") {
		if a = strings.TrimSpace(a); a != "" {
			row.Aliases = append(row.Aliases, a)
		}
	}
	codes, fees, sources := strings.Split(rec[2], "+"), strings.Split(rec[3], "+"), strings.Split(rec[4], "+")
	if len(fees) != len(codes) || len(sources) != len(codes) {
		return PriceRow{}, fmt.Errorf("field fees and sources: %d and %d entries for %d codes, want one each", len(fees), len(sources), len(codes))
	}
	for i, c := range codes {
		usd, err := strconv.ParseFloat(fees[i], 64)
		if err != nil || usd <= 0 {
			return PriceRow{}, fmt.Errorf("field fees: %q for code %s, want a positive amount", fees[i], c)
		}
		if !slices.ContainsFunc(Schedules, func(s FeeSchedule) bool { return s.Key == sources[i] }) {
			return PriceRow{}, fmt.Errorf("field sources: %q for code %s, want CLFS or PFS", sources[i], c)
		}
		if len(c) != 5 {
			return PriceRow{}, fmt.Errorf("field codes: %q, want a five-character HCPCS code", c)
		}
		row.Codes = append(row.Codes, Code{HCPCS: c, USD: usd, Schedule: sources[i]})
	}
	return row, nil
}

// scanStop are keys that are also everyday words: they match an order only
// as its whole text, never inside it (clinevo's choice).
var scanStop = []string{"ace", "fit", "tee"}

// shortened reports whether a name's key is one word left of several by
// the catalog's filler words ("bone scan" is "bone"): so short a key would
// match too much inside an order, so it matches the whole order only.
func shortened(name, key string) bool {
	return !strings.Contains(key, " ") && strings.Contains(strings.TrimSpace(textmatch.Normalize(name)), " ")
}

// index builds the matching catalog, the phrases an order's text is
// scanned for (longest first), and the fallback prices.
func (t *PriceTable) index() error {
	items := make([]catalog.Item, len(t.Rows))
	t.byName = map[string]int{}
	for i, r := range t.Rows {
		items[i] = catalog.Item{Name: r.Name, Category: catalog.Infer(r.Name), Aliases: r.Aliases}
		t.byName[r.Name] = i
	}
	cat, err := catalog.New(items)
	if err != nil {
		return err
	}
	t.cat = cat
	seen := map[string]bool{}
	for i, r := range t.Rows {
		for _, n := range append([]string{r.Name}, r.Aliases...) {
			k := catalog.Key(n)
			if len(k) < 3 || seen[k] || slices.Contains(scanStop, k) || shortened(n, k) {
				continue
			}
			seen[k] = true
			t.phrases = append(t.phrases, phrase{words: strings.Fields(k), row: i})
		}
	}
	sort.SliceStable(t.phrases, func(i, j int) bool {
		a, b := t.phrases[i].words, t.phrases[j].words
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return len(strings.Join(a, " ")) > len(strings.Join(b, " "))
	})
	t.fallbacks()
	return nil
}

// fallbacks are what an order the table does not match pays: the median
// price of the rows of its inferred category, or of all rows (clinevo's
// choice; the paper asked a language model for a price, §2).
func (t *PriceTable) fallbacks() {
	by := map[catalog.Category][]float64{}
	var all []float64
	for _, r := range t.Rows {
		c := catalog.Infer(r.Name)
		by[c] = append(by[c], r.USD())
		all = append(all, r.USD())
	}
	t.fallback = map[catalog.Category]float64{}
	for c, xs := range by {
		t.fallback[c] = median(xs)
	}
	t.median = median(all)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return round((s[len(s)/2-1] + s[len(s)/2]) / 2)
}

// Row is the row called name.
func (t PriceTable) Row(name string) (PriceRow, bool) {
	i, ok := t.byName[name]
	if !ok {
		return PriceRow{}, false
	}
	return t.Rows[i], true
}

// Price prices an order: the row its text names exactly (by name or alias),
// else the row one of also names (the catalog name the order resolved to),
// else every row whose name or alias the text holds as a phrase, longest
// first and not overlapping (an order of several tests pays each, §2); an
// order none of these match pays its category's fallback.
func (t PriceTable) Price(request string, also ...string) Pricing {
	for _, q := range append([]string{request}, also...) {
		if it, m := t.cat.Lookup(q); m != catalog.MatchNone {
			return t.pricing([]int{t.byName[it.Name]})
		}
	}
	if rows := t.scan(request); len(rows) > 0 {
		return t.pricing(rows)
	}
	usd, ok := t.fallback[catalog.Infer(request)]
	if !ok {
		usd = t.median
	}
	return Pricing{USD: usd}
}

// scan finds the rows whose phrases the request holds, in the order they
// appear in it.
func (t PriceTable) scan(request string) []int {
	words := strings.Fields(catalog.Key(request))
	used := make([]bool, len(words))
	at := map[int]int{} // row -> first position
	for _, p := range t.phrases {
		if i := findWords(words, used, p.words); i >= 0 {
			for j := range p.words {
				used[i+j] = true
			}
			if _, ok := at[p.row]; !ok {
				at[p.row] = i
			}
		}
	}
	rows := make([]int, 0, len(at))
	for r := range at {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return at[rows[i]] < at[rows[j]] })
	return rows
}

// findWords is the first position where ws occurs in words over positions
// not yet used, or -1.
func findWords(words []string, used []bool, ws []string) int {
outer:
	for i := 0; i+len(ws) <= len(words); i++ {
		for j, w := range ws {
			if used[i+j] || words[i+j] != w {
				continue outer
			}
		}
		return i
	}
	return -1
}

func (t PriceTable) pricing(rows []int) Pricing {
	p := Pricing{Matched: true}
	sum := 0.0
	for _, i := range rows {
		r := t.Rows[i]
		p.Rows = append(p.Rows, r.Name)
		for _, c := range r.Codes {
			p.Codes = append(p.Codes, c.HCPCS)
		}
		sum += r.USD()
	}
	p.USD = round(sum)
	return p
}

// round keeps amounts to the cent.
func round(x float64) float64 { return math.Round(x*100) / 100 }
