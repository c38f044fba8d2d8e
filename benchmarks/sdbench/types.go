package sdbench

import (
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// The benchmark's own members of the shared records, kept in their Ext
// (written inline).

// Output are the fields of a doctor's turn beyond the shared ones
// (clinic.DoctorOutput.Ext): a turn may ask several questions or order
// several tests at once (SDBench: questions are grouped per turn, and a turn
// orders one or more tests).
type Output struct {
	Questions []string `json:"questions,omitempty"`
	Tests     []string `json:"tests,omitempty"`
}

// OutputOf reads a doctor output's own fields.
func OutputOf(o clinic.DoctorOutput) Output {
	var x Output
	_ = o.Ext.Decode(&x) // a member of the wrong shape reads as absent: the shared fields still hold the turn
	return x
}

// WithOutput is o with the benchmark's own fields x.
func WithOutput(o clinic.DoctorOutput, x Output) clinic.DoctorOutput {
	if e, err := o.Ext.Put(x); err == nil { // a struct of plain fields always encodes
		o.Ext = e
	}
	return o
}

// Questions are the questions of a turn: Output.Questions, else the shared
// Question split into its questions (one a line, or one per question mark).
func Questions(o clinic.DoctorOutput) []string {
	if qs := textmatch.NonBlank(OutputOf(o).Questions); len(qs) > 0 {
		return qs
	}
	q := strings.TrimSpace(o.Question)
	if q == "" {
		q = strings.TrimSpace(o.Utterance)
	}
	var out []string
	for _, line := range strings.Split(q, "\n") {
		rest := line
		for {
			i := strings.Index(rest, "?")
			if i < 0 {
				break
			}
			out = append(out, strings.TrimSpace(rest[:i+1]))
			rest = rest[i+1:]
		}
		out = append(out, strings.TrimSpace(rest))
	}
	return textmatch.NonBlank(out)
}

// Tests are the tests of a turn: Output.Tests, else the shared TestName
// split at semicolons and lines.
func Tests(o clinic.DoctorOutput) []string {
	if ts := textmatch.NonBlank(OutputOf(o).Tests); len(ts) > 0 {
		return ts
	}
	return textmatch.NonBlank(strings.FieldsFunc(o.TestName, func(r rune) bool { return r == ';' || r == '\n' }))
}

// Turn are the fields of an encounter's events (clinic.Event.Ext): each
// question's answer, each ordered test's outcome, and the physician visit
// the turn opened or closed (Nori et al. 2025, §3: a run of consecutive
// questions is one visit, which ends when a diagnostic test is requested).
type Turn struct {
	Answers []Answer `json:"answers,omitempty"`
	Orders  []Order  `json:"orders,omitempty"`
	// OpensVisit marks a turn that began a physician visit, charged
	// VisitUSD; ClosesVisit one that ended it (a diagnostic test ordered).
	OpensVisit  bool    `json:"opens_visit,omitempty"`
	VisitUSD    float64 `json:"visit_usd,omitempty"`
	ClosesVisit bool    `json:"closes_visit,omitempty"`
}

// Answer is the gatekeeper's answer to one question of a turn.
type Answer struct {
	Question   string   `json:"question"`
	Reply      string   `json:"reply"`
	Facts      []string `json:"facts,omitempty"`
	Held       []string `json:"held,omitempty"`
	Unanswered string   `json:"unanswered,omitempty"`
	Generated  bool     `json:"generated,omitempty"`
	Topics     []string `json:"topics,omitempty"`
	Cached     bool     `json:"cached,omitempty"`
	Refused    bool     `json:"refused,omitempty"`
}

// Order is one ordered test and what became of it.
type Order struct {
	Request string        `json:"request"`
	Test    string        `json:"test"` // the catalog name it resolved to, else the request
	Status  clinic.Status `json:"status"`
	// Result is the finding, or for an order not performed why not (its
	// quote, or the refusal).
	Result string `json:"result,omitempty"`
	// Synthetic marks a result the record does not hold, made up by the
	// gatekeeper consistent with the case (SDBench), and kept for the episode.
	Synthetic bool `json:"synthetic,omitempty"`
	// Exam marks an examination: part of the physician visit, with no
	// price of its own (§2).
	Exam bool `json:"exam,omitempty"`
	// Price is what the order costs (charged when performed); Codes and
	// Rows are the price table's codes and rows it matched, Unmatched an
	// order the table did not match, priced at its category's fallback.
	Price     float64  `json:"price"`
	Codes     []string `json:"codes,omitempty"`
	Rows      []string `json:"rows,omitempty"`
	Unmatched bool     `json:"unmatched,omitempty"`
}

// Statuses of an order beyond the shared ones.
const (
	// Quoted is an order priced but not performed (ask_before_order).
	Quoted clinic.Status = "quoted"
)

// TurnOf reads an event's own fields.
func TurnOf(ev clinic.Event) Turn {
	var t Turn
	_ = ev.Ext.Decode(&t) // events are written by Env.Step; a foreign member reads as absent
	return t
}

func setTurn(ev *clinic.Event, t Turn) {
	x, err := ev.Ext.Put(t)
	if err == nil { // a struct of plain fields always encodes
		ev.Ext = x
	}
}

// View is the benchmark's part of the doctor's view: the spending so far
// and what the next visit costs, the variant with its budget, and the
// quotes of the orders not yet performed (the budgeted variant).
type View struct {
	SpentUSD  float64 `json:"spent_usd"`
	VisitCost float64 `json:"visit_cost_usd"`
	// VisitOpen says a physician visit is under way: questions and
	// examinations now cost nothing more; after a diagnostic test the next
	// ones begin a new visit.
	VisitOpen bool    `json:"visit_open"`
	Variant   string  `json:"variant"`
	CostCap   float64 `json:"cost_cap_usd,omitempty"`
	Quotes    []Quote `json:"quotes,omitempty"`
	// Panel and Panels are, for the ensemble variant, which panel a view is
	// shown to (from 1) and how many there are.
	Panel  int `json:"panel,omitempty"`
	Panels int `json:"panels,omitempty"`
}

// NextVisitUSD is what the next question or examination costs: nothing
// while a visit is under way, else a visit.
func (v View) NextVisitUSD() float64 {
	if v.VisitOpen {
		return 0
	}
	return v.VisitCost
}

var _ actor.Costs = View{}

// TestPrice is what ordering test costs now: an examination the next
// visit's price, a test its price in the table (or its fallback).
func (v View) TestPrice(test string) (float64, bool) {
	if it, m := catalog.Default().Lookup(test); m != catalog.MatchNone && it.Free() {
		return v.NextVisitUSD(), true
	}
	return Prices.Price(test).USD, true
}

// LeftUSD is what remains of the budget; false without one.
func (v View) LeftUSD() (float64, bool) {
	if v.CostCap <= 0 {
		return 0, false
	}
	return round(max(v.CostCap-v.SpentUSD, 0)), true
}

// Quote is a priced test awaiting its order (ask_before_order).
type Quote struct {
	Test string  `json:"test"`
	USD  float64 `json:"usd"`
}

// DoctorViewExt marks View as the doctor's.
func (View) DoctorViewExt() {}

// Record is the benchmark's member of a case's exam view: the full case
// record as text (the NEJM case's narrative in the paper's corpus), which only
// the gatekeeper reads.
type Record struct {
	FullCase string `json:"full_case,omitempty"`
	// Complete says the structured record holds every abnormal finding of
	// the case (the synthetic corpus writes it so), so a test it does not
	// hold is normal; an imported case makes no such promise.
	Complete bool `json:"record_complete,omitempty"`
}

// RecordOf reads a case's full record.
func RecordOf(c *clinic.Case) Record {
	var r Record
	_ = c.Exam.Ext.Decode(&r) // checked by ValidateCase
	return r
}

// ViewOf is a view's own part; the zero View for another benchmark's view.
func ViewOf(v clinic.DoctorView) View {
	x, _ := v.Ext.(View)
	return x
}
