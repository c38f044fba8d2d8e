// Package catalog is the versioned test catalog: what a doctor may request, the
// aliases it may use, and what each request costs in USD.
package catalog

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// Version identifies the catalog content. Traces and reports record it.
const Version = "clinevo-catalog/1"

// Category groups tests that share a price.
type Category string

// Price categories. Physical examination is free and does not use the test budget.
const (
	Exam        Category = "physical_exam"
	Rapid       Category = "rapid_test"
	CBC         Category = "cbc"
	Glucose     Category = "glucose"
	Chemistry   Category = "chemistry"
	Urinalysis  Category = "urinalysis"
	Troponin    Category = "troponin"
	ECG         Category = "ecg"
	Thyroid     Category = "thyroid"
	XRay        Category = "xray"
	Spirometry  Category = "spirometry"
	Ultrasound  Category = "ultrasound"
	CT          Category = "ct"
	MRI         Category = "mri"
	Other       Category = "other"
	PhysicalKey          = "physical examination"
)

// defaultPrices is the price table of settings.Default: the one copy of it.
var defaultPrices = settings.Default().Episode.Prices

// Item is one catalog entry.
type Item struct {
	Name     string   `json:"name"`
	Category Category `json:"category"`
	Aliases  []string `json:"aliases,omitempty"`
	// Normal is the result returned for a case that has no specific value, for
	// routine tests only; empty means "unavailable unless the case has a value".
	Normal string `json:"normal,omitempty"`
}

// Free reports whether the item is a physical examination (no cost, no budget).
func (it Item) Free() bool { return it.Category == Exam }

// Catalog is a set of items with an alias index.
type Catalog struct {
	items []Item
	index map[string]int // key -> item
}

// Mentions returns the billable items whose name or alias appears as a phrase
// in text, in catalog order.
func (c *Catalog) Mentions(text string) []string {
	t := " " + Key(text) + " "
	seen := map[int]bool{}
	for k, i := range c.index {
		if len(k) >= 3 && !c.items[i].Free() && !seen[i] && strings.Contains(t, " "+k+" ") {
			seen[i] = true
		}
	}
	var out []string
	for i, it := range c.items {
		if seen[i] {
			out = append(out, it.Name)
		}
	}
	return out
}

// filler words do not change which test is meant.
var filler = map[string]bool{"test": true, "tests": true, "level": true, "levels": true, "scan": true,
	"study": true, "serum": true, "measurement": true, "please": true, "order": true, "check": true,
	"a": true, "an": true, "the": true, "of": true, "for": true, "and": true, "me": true, "get": true, "do": true}

// Key is the lookup key of a test name: normalised, "xray" split, filler words dropped.
func Key(name string) string {
	n := textmatch.Normalize(name)
	n = strings.ReplaceAll(n, "xray", "x ray")
	n = strings.ReplaceAll(n, "electrocardiogram", "ecg")
	words := strings.Fields(n)
	out := words[:0]
	for _, w := range words {
		if !filler[w] {
			out = append(out, w)
		}
	}
	if len(out) == len(words) {
		return n // Normalize left single spaces, and no filler word was dropped
	}
	return strings.Join(out, " ")
}

// New builds a catalog. Two items sharing a key is an error naming both.
func New(items []Item) (*Catalog, error) {
	c := &Catalog{index: map[string]int{}}
	for _, it := range items {
		if err := c.add(it); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Catalog) add(it Item) error {
	if Key(it.Name) == "" {
		return fmt.Errorf("catalog: item %q has an empty name", it.Name)
	}
	keys := append([]string{it.Name}, it.Aliases...)
	for _, k := range keys {
		if j, ok := c.index[Key(k)]; ok {
			return fmt.Errorf("catalog: %q of item %q is already used by item %q", k, it.Name, c.items[j].Name)
		}
	}
	c.items = append(c.items, it)
	for _, k := range keys {
		c.index[Key(k)] = len(c.items) - 1
	}
	return nil
}

// Extend returns a copy of c with extra items; an extra whose key is taken is skipped
// (it already names an existing item).
func (c *Catalog) Extend(extra []Item) *Catalog {
	out := &Catalog{items: append([]Item(nil), c.items...), index: maps.Clone(c.index)}
	for _, it := range extra {
		if _, ok := out.index[Key(it.Name)]; ok {
			continue
		}
		var aliases []string
		for _, a := range it.Aliases {
			if _, ok := out.index[Key(a)]; !ok {
				aliases = append(aliases, a)
			}
		}
		it.Aliases = aliases
		_ = out.add(it) // keys were checked above
	}
	return out
}

// Match says how a request found its item.
type Match string

// Match kinds.
const (
	MatchExact Match = "exact"
	MatchAlias Match = "alias"
	MatchNone  Match = "none"
)

// Lookup finds the item a free-text request names, by exact name or alias after
// normalisation.
func (c *Catalog) Lookup(request string) (Item, Match) {
	k := Key(request)
	i, ok := c.index[k]
	if !ok {
		return Item{}, MatchNone
	}
	if Key(c.items[i].Name) == k {
		return c.items[i], MatchExact
	}
	return c.items[i], MatchAlias
}

// Items returns the items in catalog order.
func (c *Catalog) Items() []Item { return append([]Item(nil), c.items...) }

// Names returns every item name, sorted.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.items))
	for i, it := range c.items {
		out[i] = it.Name
	}
	sort.Strings(out)
	return out
}

// Price returns the cost in USD of an item under a price table keyed by
// category (settings episode.prices); a category the table lacks takes the
// default table's price, and an unknown category the price of Other.
func Price(it Item, prices map[string]float64) float64 {
	for _, table := range []map[string]float64{prices, defaultPrices} {
		if p, ok := table[string(it.Category)]; ok {
			return p
		}
	}
	for _, table := range []map[string]float64{prices, defaultPrices} {
		if p, ok := table[string(Other)]; ok {
			return p
		}
	}
	return 0
}

// Infer guesses the price category of a test name from its words. Importers use
// it for tests the catalog does not list.
func Infer(name string) Category {
	k := " " + Key(name) + " "
	has := func(ws ...string) bool {
		for _, w := range ws {
			if containsWords(k, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("examination", "exam", "vital signs", "inspection", "palpation", "auscultation"):
		return Exam
	case has("mri", "magnetic resonance"):
		return MRI
	case has("ct", "computed tomography", "cta"):
		return CT
	case has("ultrasound", "echocardiogram", "echocardiography", "echo", "doppler", "sonography", "duplex"):
		return Ultrasound
	case has("x ray", "radiograph", "radiography", "mammography", "mammogram", "barium"):
		return XRay
	case has("spirometry", "pulmonary function", "pft"):
		return Spirometry
	case has("ecg", "ekg"):
		return ECG
	case has("troponin"):
		return Troponin
	case has("thyroid", "tsh", "t4", "t3"):
		return Thyroid
	case has("urinalysis", "urine"):
		return Urinalysis
	case has("complete blood count", "cbc", "blood count", "hematology", "haematology"):
		return CBC
	case has("glucose", "hba1c"):
		return Glucose
	case has("rapid", "dipstick", "pregnancy", "strep"):
		return Rapid
	case has("metabolic", "electrolytes", "chemistry", "creatinine", "renal function", "liver function", "biochemistry", "lipase", "amylase", "bun"):
		return Chemistry
	}
	return Other
}

// containsWords reports whether padded, a key with a space at each end, holds
// the words w as a whole (strings.Contains(padded, " "+w+" "), without building
// the pattern).
func containsWords(padded, w string) bool {
	for i := 0; i < len(padded); {
		j := strings.Index(padded[i:], w)
		if j < 0 {
			return false
		}
		j += i
		if end := j + len(w); j > 0 && padded[j-1] == ' ' && end < len(padded) && padded[end] == ' ' {
			return true
		}
		i = j + 1
	}
	return false
}
