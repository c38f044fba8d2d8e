package sdbench

import (
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
)

var _ bench.Describer = Benchmark{}

// Describe notes under a question or test turn what it was charged and why
// (a trace in a terminal, the episode page): a new physician visit, each
// test's price with its codes or the fallback of an unmatched order, and
// whether the turn ended the visit. The target is the shared reading's.
func (Benchmark) Describe(ev clinic.Event) bench.Description {
	if ev.Action != clinic.Ask && ev.Action != clinic.RequestTest {
		return bench.Description{}
	}
	t := TurnOf(ev)
	var parts []string
	if t.OpensVisit {
		parts = append(parts, fmt.Sprintf("a new visit $%g", t.VisitUSD))
	}
	for _, o := range t.Orders {
		switch {
		case o.Exam && o.Status == clinic.StatusReturned && !t.OpensVisit:
			parts = append(parts, o.Test+" within the visit")
		case o.Exam || o.Status != clinic.StatusReturned:
			continue
		case o.Unmatched:
			parts = append(parts, fmt.Sprintf("%s $%g (not in the price table: its category's median)", o.Test, o.Price))
		default:
			parts = append(parts, fmt.Sprintf("%s $%g [%s]", o.Test, o.Price, strings.Join(o.Codes, "+")))
		}
	}
	if t.ClosesVisit {
		parts = append(parts, "the visit ends")
	}
	if ev.Action == clinic.Ask && !t.OpensVisit && ev.Status == clinic.StatusReturned {
		parts = append(parts, "within the visit")
	}
	if len(parts) == 0 {
		return bench.Description{Note: fmt.Sprintf("charged $%g", ev.Cost)}
	}
	return bench.Description{Note: fmt.Sprintf("charged $%g: %s", ev.Cost, strings.Join(parts, "; "))}
}
