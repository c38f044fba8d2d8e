package actor

import (
	"github.com/clinevo/clinevo/clinic"
)

// Costs is a benchmark's part of the doctor's view that prices tests and
// tracks a budget (a capability of the view's Ext, asked for with a type
// assertion): what the built-in doctors weigh an order by where money, not
// a count of tests, bounds the encounter. Prices are public, not case
// data: a view may carry them.
type Costs interface {
	// TestPrice is what ordering test costs now; false where the view
	// cannot say.
	TestPrice(test string) (float64, bool)
	// LeftUSD is what remains of the encounter's budget; false where it has
	// none.
	LeftUSD() (float64, bool)
}

// UncappedTests is how many billable tests a built-in doctor orders at most
// in an encounter whose view prices tests and sets no test budget
// (MaxTests 0): a habit of the doctor, not a rule of the environment
// (clinevo's choice: twice the default test budget, episode.max_tests 3).
const UncappedTests = 6

// ownTestLimit is how many billable tests a built-in doctor orders where
// the profile sets no test budget, shows no list and prices no test
// (Med-Inquire: its view's MaxTests is 0): MedEvoEval's Emax (§5), clinevo's
// choice for a profile whose paper gives none. Before it, a view without a
// budget read as a budget of none, and the doctor never ordered a test there.
const ownTestLimit = 3

// TestAllowance is how many billable tests a built-in doctor may order in
// the encounter in all: the view's test budget; where it sets none,
// UncappedTests if the view prices tests, ownTestLimit if it shows no list,
// else none.
func TestAllowance(v clinic.DoctorView) int {
	if v.MaxTests > 0 {
		return v.MaxTests
	}
	if _, ok := v.Ext.(Costs); ok {
		return UncappedTests
	}
	if len(v.Catalog) == 0 {
		return ownTestLimit
	}
	return 0
}

// Affordable keeps, in order, the tests whose prices fit together in what
// remains of the view's budget: all of them where the view has no budget or
// no prices. A test the view cannot price is kept.
func Affordable(v clinic.DoctorView, tests []string) []string {
	c, ok := v.Ext.(Costs)
	if !ok {
		return tests
	}
	left, capped := c.LeftUSD()
	if !capped {
		return tests
	}
	var out []string
	for _, t := range tests {
		p, ok := c.TestPrice(t)
		if ok && p > left {
			continue
		}
		left -= p
		out = append(out, t)
	}
	return out
}
