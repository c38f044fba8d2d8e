package runstatus

import (
	"sort"
	"time"

	"github.com/clinevo/clinevo/results"
)

// Endpoint is one model endpoint's limiter figures over a run, as `stream
// status` shows them. The limiter (llm.Limiter) lives in each worker
// process; every model call adds what it met to its episode's usage in the
// results store (429s, time waited, the limit after it), so any process
// reads the figures of every worker, durably, without asking a worker.
type Endpoint struct {
	Endpoint string   `json:"endpoint"` // base URL and model
	Roles    []string `json:"roles"`
	// Limit is the latest reading of the calls-in-flight limit (a worker's
	// when several run), at LimitAt.
	Limit   int       `json:"limit"`
	LimitAt time.Time `json:"limit_at"`
	// Calls are the answered calls; RateLimited those answered 429, and
	// RateLimitedShare their share of all requests (calls and 429s).
	Calls            int     `json:"calls"`
	RateLimited      int     `json:"rate_limited"`
	RateLimitedShare float64 `json:"rate_limited_share"`
	// WaitedSeconds is the time calls waited for a slot, a rate window or a
	// Retry-After, summed over calls (calls wait side by side).
	WaitedSeconds float64 `json:"waited_seconds"`
}

// Endpoints are the limiter figures of a run's usage by role (RunUsage),
// one per endpoint, by name; roles without a limiter (built-in roles, model
// roles with no concurrency, rpm or tpm) have no endpoint and are left out.
func Endpoints(byRole map[string]results.Usage) []Endpoint {
	by := map[string]*Endpoint{}
	roles := make([]string, 0, len(byRole))
	for role := range byRole {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for _, role := range roles {
		u := byRole[role]
		if u.Endpoint == "" {
			continue
		}
		e, ok := by[u.Endpoint]
		if !ok {
			e = &Endpoint{Endpoint: u.Endpoint}
			by[u.Endpoint] = e
		}
		e.Roles = append(e.Roles, role)
		e.Calls += u.Calls
		e.RateLimited += u.RateLimited
		e.WaitedSeconds += u.WaitedMS / 1000
		if at := time.UnixMilli(u.LimitAt).UTC(); u.LimitAt > 0 && at.After(e.LimitAt) {
			e.Limit, e.LimitAt = u.Limit, at
		}
	}
	out := make([]Endpoint, 0, len(by))
	for _, e := range by {
		if n := e.Calls + e.RateLimited; n > 0 {
			e.RateLimitedShare = Round(float64(e.RateLimited) / float64(n))
		}
		e.WaitedSeconds = Round(e.WaitedSeconds)
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Endpoint < out[j].Endpoint })
	return out
}
