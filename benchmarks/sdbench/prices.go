package sdbench

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/clinevo/clinevo/catalog"
)

// PriceTable is SDBench's cost model as data (prices.json): a flat price per
// physician visit, charged once per question turn, and one price per
// CPT-coded test (Nori et al. 2025, SDBench: cost is physician visits plus tests at
// US prices). A test the table does not name pays its catalog category's
// price; examinations are part of the visit and free.
type PriceTable struct {
	Source   string             `json:"source"`
	Year     int                `json:"year"`
	Currency string             `json:"currency"`
	Visit    Price              `json:"visit"`
	Tests    map[string]Price   `json:"tests"`
	Category map[string]float64 `json:"categories"`
}

// Price is one priced service.
type Price struct {
	CPT  string  `json:"cpt"`
	USD  float64 `json:"usd"`
	Note string  `json:"note,omitempty"`
}

//go:embed prices.json
var pricesJSON []byte

// Prices is the shipped table; the test suite checks every entry.
var Prices = mustPrices(pricesJSON)

func mustPrices(b []byte) PriceTable {
	t, err := ReadPrices(b)
	if err != nil {
		panic(err) // the embedded table is checked by TestPriceTable
	}
	return t
}

// ReadPrices reads a price table; the error names the entry.
func ReadPrices(b []byte) (PriceTable, error) {
	var t PriceTable
	if err := json.Unmarshal(b, &t); err != nil {
		return PriceTable{}, fmt.Errorf("sdbench prices: %w", err)
	}
	switch {
	case t.Source == "" || t.Year == 0:
		return PriceTable{}, fmt.Errorf("sdbench prices: source and year are required")
	case t.Visit.USD <= 0:
		return PriceTable{}, fmt.Errorf("sdbench prices: visit.usd must be positive")
	}
	names := make([]string, 0, len(t.Tests))
	for n := range t.Tests {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if p := t.Tests[n]; p.USD < 0 || p.CPT == "" {
			return PriceTable{}, fmt.Errorf("sdbench prices: tests[%q] needs a CPT code and a price >= 0", n)
		}
	}
	if _, ok := t.Category["other"]; !ok {
		return PriceTable{}, fmt.Errorf("sdbench prices: categories.other is required (what an unknown test pays)")
	}
	return t, nil
}

// Test is what a test costs: its table price, else its catalog category's,
// else the "other" category's; examinations are free.
func (t PriceTable) Test(it catalog.Item) float64 {
	if it.Free() {
		return 0
	}
	if p, ok := t.Tests[it.Name]; ok {
		return p.USD
	}
	if p, ok := t.Category[string(it.Category)]; ok {
		return p
	}
	return t.Category["other"]
}
