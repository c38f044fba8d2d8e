package sdbench

import (
	"fmt"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/settings"
)

// Order modes (Nori et al. 2025: MAI-DxO's budgeted variant consults a
// budget tracker before tests are ordered).
const (
	// OrderDirect performs an order at once: the "no budget" variant when no
	// cost cap is set.
	OrderDirect = "direct"
	// AskBeforeOrder quotes an order first (each test's price and the spend
	// so far) and performs a test only once it has been quoted: the doctor
	// asks what an order costs before it orders.
	AskBeforeOrder = "ask_before_order"
)

// Episode are the benchmark's own episode keys, inline in settings.Episode.Ext
// (episode.visit_cost, episode.cost_cap, episode.order_mode).
type Episode struct {
	// VisitCost is the price of one physician visit, charged once per
	// question turn however many questions it holds (SDBench); the default is the
	// price table's.
	VisitCost float64 `json:"visit_cost"`
	// CostCap is a cumulative cost cap per encounter in USD (the budgeted
	// variant, MAI-DxO); 0 is no cap. An order or a visit that would pass it is
	// refused and not charged.
	CostCap float64 `json:"cost_cap"`
	// OrderMode is direct or ask_before_order.
	OrderMode string `json:"order_mode"`
}

var defaults = Episode{VisitCost: Prices.Visit.USD, OrderMode: OrderDirect}

var _ bench.EpisodeSettings = Benchmark{}

// EpisodeDefaults are the keys with their defaults: the table's visit price,
// no cap, direct orders.
func (Benchmark) EpisodeDefaults() any { return defaults }

// EpisodeOf reads the keys of s over their defaults; the error names the key.
func EpisodeOf(s settings.Settings) (Episode, error) {
	e := defaults
	if err := s.Episode.Decode(&e); err != nil {
		return Episode{}, err
	}
	return e, nil
}

func (e Episode) validate() error {
	switch {
	case e.VisitCost < 0:
		return fmt.Errorf("episode.visit_cost must not be negative, got %v", e.VisitCost)
	case e.CostCap < 0:
		return fmt.Errorf("episode.cost_cap must not be negative (0 is no cap), got %v", e.CostCap)
	case e.OrderMode != OrderDirect && e.OrderMode != AskBeforeOrder:
		return fmt.Errorf("episode.order_mode %q, want %s or %s", e.OrderMode, OrderDirect, AskBeforeOrder)
	}
	return nil
}

// Mode names the run's budget mode as the paper's variants do: "no budget",
// "budgeted $X", with "ask before order" where orders are quoted first.
func (e Episode) Mode() string {
	m := "no budget"
	if e.CostCap > 0 {
		m = fmt.Sprintf("budgeted $%g", e.CostCap)
	}
	if e.OrderMode == AskBeforeOrder {
		m += ", ask before order"
	}
	return m
}
