package runstatus

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/textmatch"
)

// whereField is a name a where clause takes: the search attribute (or
// Temporal field) it reads, if any, its kind of value, and how a recorded
// episode answers it.
type whereField struct {
	attr string // "" for a field only the results store holds
	kind fieldKind
	num  func(results.Record) float64  // numeric fields
	text func(results.Record) []string // text fields: the values it holds (any may match)
}

type fieldKind int

const (
	numeric  fieldKind = iota // < <= > >= = !=
	keyword                   // = != (exact)
	freeText                  // = != (normalised) ~ !~ (contains)
)

// WhereFields are the names a where clause may compare. On Temporal's
// search attributes: an episode's score S, its stage, pass, index in the
// run, case, condition and kind, and its Temporal status. On the results
// store's record of a finished episode: the diagnosis text, turns, cost
// (the encounter's USD), a process label of any action, a retrieved card,
// and the number of retrieved cards.
var WhereFields = map[string]whereField{
	"s":     {attr: "Score", num: func(r results.Record) float64 { return r.Scores.S }},
	"stage": {attr: "Stage", num: func(r results.Record) float64 { return float64(r.Stage) }},
	"pass":  {attr: "Pass", num: func(r results.Record) float64 { return float64(r.Pass) }},
	"index": {attr: "EpisodeIndex", num: func(r results.Record) float64 { return float64(r.Index) }},
	"case":  {attr: "CaseId", kind: keyword, text: func(r results.Record) []string { return []string{r.CaseID} }},
	"condition": {attr: "Condition", kind: keyword,
		text: func(r results.Record) []string { return []string{r.Condition} }},
	"kind": {attr: "Kind", kind: keyword, text: func(r results.Record) []string { return []string{r.Kind} }},
	// A record is a finished episode: its workflow completed.
	"status":    {attr: "ExecutionStatus", kind: keyword, text: func(results.Record) []string { return []string{"Completed"} }},
	"diagnosis": {kind: freeText, text: func(r results.Record) []string { return r.Final.Diagnosis }},
	"turns":     {num: func(r results.Record) float64 { return float64(r.Turns) }},
	"cost":      {num: func(r results.Record) float64 { return r.Scores.Cost }},
	"label":     {kind: keyword, text: func(r results.Record) []string { return r.Labels }},
	"card":      {kind: keyword, text: func(r results.Record) []string { return r.Retrieved }},
	"cards":     {num: func(r results.Record) float64 { return float64(len(r.Retrieved)) }},
}

// WhereNames are the names WhereFields takes, as the help and errors list them.
const WhereNames = "S, stage, pass, index, case, condition, kind, status, diagnosis, turns, cost, label, card, cards"

var comparison = regexp.MustCompile(`^\s*([A-Za-z_]+)\s*(<=|>=|!=|!~|=|<|>|~)\s*(.+?)\s*$`)

// Filter is a parsed where clause: comparisons joined by "and" or ","
// ("S<0.5", "stage>=3 and condition=angina", "diagnosis~pneumonia",
// "label=critical_error", "cards>0").
type Filter struct {
	terms []term
}

type term struct {
	name, op, value string
	num             float64
	field           whereField
}

// ParseWhere parses a where clause. A name it does not know, an operator
// the name does not take or a number that does not parse is an error
// naming it.
func ParseWhere(clause string) (Filter, error) {
	var f Filter
	for _, part := range regexp.MustCompile(`(?i)\s+and\s+|,`).Split(clause, -1) {
		if strings.TrimSpace(part) == "" {
			continue
		}
		t, err := parseTerm(part)
		if err != nil {
			return Filter{}, fmt.Errorf("--where %q: %w", clause, err)
		}
		f.terms = append(f.terms, t)
	}
	return f, nil
}

func parseTerm(part string) (term, error) {
	m := comparison.FindStringSubmatch(part)
	if m == nil {
		return term{}, fmt.Errorf("%q is not NAME OP VALUE (OP one of < <= > >= = != ~ !~), e.g. S<0.5", strings.TrimSpace(part))
	}
	t := term{name: strings.ToLower(m[1]), op: m[2], value: strings.Trim(m[3], `"'`)}
	f, ok := WhereFields[t.name]
	if !ok {
		return term{}, fmt.Errorf("unknown name %q: want one of %s", m[1], WhereNames)
	}
	t.field = f
	if t.value == "" {
		return term{}, fmt.Errorf("%s takes a value, got none", m[1])
	}
	switch f.kind {
	case numeric:
		n, err := strconv.ParseFloat(t.value, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return term{}, fmt.Errorf("%s takes a number, got %q", m[1], t.value)
		}
		if t.op == "~" || t.op == "!~" {
			return term{}, fmt.Errorf("%s takes < <= > >= = or !=, got %s", m[1], t.op)
		}
		t.num = n
	case keyword:
		if t.op != "=" && t.op != "!=" {
			return term{}, fmt.Errorf("%s takes = or !=, got %s", m[1], t.op)
		}
	case freeText:
		if !slices.Contains([]string{"=", "!=", "~", "!~"}, t.op) {
			return term{}, fmt.Errorf("%s takes ~ (contains), !~, = or !=, got %s", m[1], t.op)
		}
	}
	if t.name == "status" { // Temporal's names: Running, Completed, Failed, ...
		t.value = strings.ToUpper(t.value[:1]) + t.value[1:]
	}
	return t, nil
}

// Query is the Temporal visibility query of the comparisons on search
// attributes, joined by AND; "" when there are none.
func (f Filter) Query() string {
	var parts []string
	for _, t := range f.terms {
		switch {
		case t.field.attr == "":
		case t.field.kind == numeric:
			parts = append(parts, fmt.Sprintf("%s %s %s", t.field.attr, t.op, strconv.FormatFloat(t.num, 'g', -1, 64)))
		default:
			parts = append(parts, fmt.Sprintf("%s %s %q", t.field.attr, t.op, t.value))
		}
	}
	return strings.Join(parts, " AND ")
}

// Recorded reports whether a comparison reads what only the results store
// holds (diagnosis, turns, cost, label, card, cards): then only finished
// episodes, which have a record, can match.
func (f Filter) Recorded() bool {
	return slices.ContainsFunc(f.terms, func(t term) bool { return t.field.attr == "" })
}

// Match reports whether a recorded episode meets every comparison, those on
// search attributes read from the record's own fields.
func (f Filter) Match(r results.Record) bool {
	return f.match(r, true)
}

// match tests r against the comparisons, or against those on the results
// store's fields alone (all false).
func (f Filter) match(r results.Record, all bool) bool {
	for _, t := range f.terms {
		if (all || t.field.attr == "") && !t.holds(r) {
			return false
		}
	}
	return true
}

func (t term) holds(r results.Record) bool {
	if t.field.kind == numeric {
		v, eps := t.field.num(r), 1e-9 // scores and costs are sums of fractions: equal to 1e-9 is equal
		switch t.op {
		case "<":
			return v < t.num-eps
		case "<=":
			return v <= t.num+eps
		case ">":
			return v > t.num+eps
		case ">=":
			return v >= t.num-eps
		case "=":
			return math.Abs(v-t.num) <= eps
		}
		return math.Abs(v-t.num) > eps
	}
	vals, want := t.field.text(r), t.value
	eq := func(v string) bool { return v == want }
	switch t.field.kind {
	case freeText:
		want = textmatch.Normalize(want)
		eq = func(v string) bool { return textmatch.Normalize(v) == want }
		if t.op == "~" || t.op == "!~" {
			eq = func(v string) bool { return strings.Contains(textmatch.Normalize(v), want) }
		}
	case keyword:
		if t.name == "label" { // labels are upper case (CRITICAL_ERROR); the clause may spell them in any case
			eq = func(v string) bool { return strings.EqualFold(v, want) }
		}
	}
	found := slices.ContainsFunc(vals, eq)
	if strings.HasPrefix(t.op, "!") {
		return !found
	}
	return found
}

// KeepRecorded keeps the episodes whose record (recs, by workflow ID) meets
// the comparisons on the results store's fields; with none, it returns eps.
// An episode without a record (still running) cannot meet them.
func (f Filter) KeepRecorded(eps []Episode, recs []results.Record) []Episode {
	if !f.Recorded() {
		return eps
	}
	byID := make(map[string]results.Record, len(recs))
	for _, r := range recs {
		byID[r.WorkflowID] = r
	}
	out := []Episode{}
	for _, e := range eps {
		if r, ok := byID[e.WorkflowID]; ok && f.match(r, false) {
			out = append(out, e)
		}
	}
	return out
}
