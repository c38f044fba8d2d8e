package sdbench

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// order performs a test turn, order by order (§2: "explicit orders for
// labs, imaging, or procedures"; several in one turn, appendix A). An
// examination is part of the physician visit: it costs a visit when none is
// under way and nothing otherwise. A diagnostic test pays its price from the
// table and ends the visit (§3). A test done before gives its result again
// at no charge (clinevo's choice); under the budgeted variant a test is
// first quoted; one that would pass the budget is refused, uncharged.
func (e *Env) order(ctx context.Context, out clinic.DoctorOutput, ev *clinic.Event) error {
	reqs := Tests(out)
	if len(reqs) == 0 {
		ev.Status, ev.Reply = clinic.StatusUnparseable, "REQUEST_TEST needs a test_name"
		return nil
	}
	var t Turn
	cost := 0.0
	for _, req := range reqs {
		o, err := e.place(ctx, req, &t, &cost)
		if err != nil {
			return err
		}
		if !o.Exam && (o.Status == clinic.StatusReturned || o.Status == clinic.StatusDuplicate) {
			t.ClosesVisit = true
		}
		t.Orders = append(t.Orders, o)
	}
	var names, lines []string
	status := clinic.StatusOverBudget
	for _, o := range t.Orders {
		names = append(names, o.Test)
		lines = append(lines, o.Test+": "+o.Result)
		switch {
		case o.Status == clinic.StatusReturned || o.Status == clinic.StatusDuplicate:
			status = clinic.StatusReturned
		case o.Status == Quoted && status != clinic.StatusReturned:
			status = Quoted
		}
	}
	if len(t.Orders) == 1 && t.Orders[0].Status == clinic.StatusDuplicate {
		status = clinic.StatusDuplicate
	}
	ev.Test, ev.Status, ev.Reply, ev.Cost = strings.Join(names, "; "), status, strings.Join(lines, "\n"), round(cost)
	ev.Free = !slices.ContainsFunc(t.Orders, func(o Order) bool { return !o.Exam })
	setTurn(ev, t)
	return nil
}

// place decides one order of turn t, adding what it charges to cost.
func (e *Env) place(ctx context.Context, req string, t *Turn, cost *float64) (Order, error) {
	it, m, err := e.exam.Resolve(ctx, req, e.cat)
	if err != nil {
		return Order{}, fmt.Errorf("exam service: %w", err)
	}
	if m == catalog.MatchNone {
		it = e.byPriceRow(req)
	}
	o := Order{Request: req, Test: it.Name, Exam: it.Free()}
	done := append(e.orders(), t.Orders...)
	if i := slices.IndexFunc(done, func(p Order) bool { return p.Test == o.Test && p.Status == clinic.StatusReturned }); i >= 0 {
		o.Status, o.Result, o.Synthetic = clinic.StatusDuplicate, done[i].Result, done[i].Synthetic
		return o, nil
	}
	var charge float64
	if o.Exam {
		charge = e.visitCharge(*t)
	} else {
		p := Prices.Price(req, it.Name)
		o.Price, o.Codes, o.Rows, o.Unmatched, charge = p.USD, p.Codes, p.Rows, !p.Matched, p.USD
	}
	quotedBefore := slices.ContainsFunc(e.orders(), func(p Order) bool { return p.Test == o.Test && p.Status == Quoted })
	switch {
	case e.sd.Quotes() && !o.Exam && !quotedBefore:
		o.Status = Quoted
		o.Result = fmt.Sprintf("quoted at $%g (spent so far $%g of $%g); order it again to perform it", o.Price, round(e.Spent()+*cost), e.sd.CostCap)
		return o, nil
	case e.overCap(*cost + charge):
		o.Status = clinic.StatusOverBudget
		o.Result = fmt.Sprintf("refused: $%g would pass the budget of $%g ($%g spent)", charge, e.sd.CostCap, round(e.Spent()+*cost))
		return o, nil
	}
	res, synthetic, err := e.result(ctx, it)
	if err != nil {
		return Order{}, err
	}
	o.Status, o.Result, o.Synthetic = clinic.StatusReturned, res, synthetic
	if o.Exam && charge > 0 {
		t.OpensVisit, t.VisitUSD = true, charge
	}
	*cost += charge
	return o, nil
}

// byPriceRow is the case's item an order names through the price table's
// aliases ("excisional lymph node biopsy", "LDH"): the item of the one row
// the order matches, where the case's catalog has it; else an item named by
// the order itself.
func (e *Env) byPriceRow(req string) catalog.Item {
	if rows := Prices.Price(req).Rows; len(rows) == 1 {
		if it, m := e.cat.Lookup(rows[0]); m != catalog.MatchNone {
			return it
		}
	}
	return catalog.Item{Name: textmatch.Normalize(req), Category: catalog.Infer(req)}
}

// result is a test's result: the record's, what the record's text says of
// it, or the gatekeeper's synthetic one.
func (e *Env) result(ctx context.Context, it catalog.Item) (string, bool, error) {
	if it.Free() {
		if text, ok := e.findings(it); ok {
			return text, false, nil
		}
	} else {
		for _, tv := range e.c.Exam.Tests {
			if tv.Name == it.Name {
				return tv.Result, false, nil
			}
		}
	}
	if text, ok := e.narrative(it); ok {
		return text, false, nil
	}
	text, err := e.gk.Synthesize(ctx, &e.c, it.Name, e.Revealed())
	if err != nil {
		return "", false, fmt.Errorf("gatekeeper: %w", err)
	}
	return text, true, nil
}

// narrative is what the full record's text says of a test the structured
// record lacks (an imported case given as narrative only): its sentences
// that name the test, by its name or an alias.
func (e *Env) narrative(it catalog.Item) (string, bool) {
	if it.Name == catalog.PhysicalKey {
		return "", false
	}
	names := append([]string{it.Name, strings.TrimSuffix(it.Name, " examination")}, it.Aliases...)
	var out []string
	for _, s := range recordSentences(RecordOf(&e.c).FullCase) {
		for _, n := range names {
			if len(n) > 2 && textmatch.ContainsPhrase(s, n) {
				out = append(out, s)
				break
			}
		}
	}
	return strings.Join(out, " "), len(out) > 0
}

// findings is the record's examination text for an examination item: every
// system for the physical examination, else the item's system.
func (e *Env) findings(it catalog.Item) (string, bool) {
	var parts []string
	for _, f := range e.c.Exam.Findings {
		switch {
		case it.Name == catalog.PhysicalKey:
			parts = append(parts, f.System+": "+f.Text)
		case f.System == strings.TrimSuffix(it.Name, " examination"):
			parts = append(parts, f.Text)
		}
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}
