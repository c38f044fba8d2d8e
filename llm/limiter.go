package llm

import (
	"context"
	"log/slog"
	"math"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Limiter is the adaptive limit of one model endpoint on this worker: how
// many calls may be in flight, moved by AIMD (additive increase,
// multiplicative decrease, as TCP's congestion control): it grows while calls
// succeed and halves on a 429 or a timeout, under the ceiling of the roles'
// concurrency; a 429's Retry-After holds every call of the endpoint until it
// has passed; optional requests-per-minute and tokens-per-minute windows keep
// below a provider's published limits. Every role on the same endpoint
// (base URL and model) shares one; its ceiling is the sum of the roles'
// concurrency, so that sharing takes no calls from any role.
type Limiter struct {
	Endpoint string
	mu       sync.Mutex
	ceilings map[string]int // by role
	max      int
	limit    float64
	inflight int
	hold     time.Time // no call starts before (Retry-After)
	rpm, tpm int
	// learnt is the request rate per window the endpoint answered when it
	// last refused one (0: none yet): the adaptive part of the rate limit,
	// for servers whose rpm nobody configured.
	learnt   int
	lastCut  time.Time // the last decrease
	first    time.Time // the first call
	window   time.Duration
	sent     []time.Time // request starts within the window
	answered []time.Time // answered calls within the window
	spent    []spentTokens
	wake     chan struct{} // closed and replaced when a slot may have freed
	stats    LimiterStats
}

type spentTokens struct {
	at time.Time
	n  int
}

// LimiterStats are an endpoint's figures for telemetry and status.
type LimiterStats struct {
	Endpoint    string        `json:"endpoint"`
	Limit       int           `json:"limit"`
	Max         int           `json:"max"`
	InFlight    int           `json:"in_flight"`
	Calls       int           `json:"calls"`
	RateLimited int           `json:"rate_limited"` // answered 429
	Timeouts    int           `json:"timeouts"`
	Waited      time.Duration `json:"waited_ns"` // total time calls waited for a slot, a window or a Retry-After
	// LearntRate is the requests per window the endpoint answered when it
	// last refused one: the rate the limiter keeps to when no rpm is set.
	LearntRate int          `json:"learnt_rate"`
	History    []LimitPoint `json:"history"` // every change of Limit
}

// LimitPoint is the limit from At on.
type LimitPoint struct {
	At    time.Time `json:"at"`
	Limit int       `json:"limit"`
}

// maxHistory bounds LimiterStats.History (clinevo's own choice): the oldest
// changes are dropped.
const maxHistory = 512

var (
	limitGauge, _ = meterLLM.Int64Gauge("clinevo.llm.concurrency_limit", metric.WithDescription("adaptive limit of calls in flight, by endpoint"))
	limited, _    = meterLLM.Int64Counter("clinevo.llm.rate_limited", metric.WithDescription("model calls answered 429, by endpoint"))
)

// NewLimiter is an endpoint's limiter with rpm and tpm limits per window
// (0: none; window 0: a minute), joined by no role yet. It starts at its
// ceiling, the limit today's fixed concurrency would be (clinevo's own
// choice: a server that never refuses sees no change), and moves from there.
func NewLimiter(endpoint string, rpm, tpm int, window time.Duration) *Limiter {
	if window <= 0 {
		window = time.Minute
	}
	return &Limiter{Endpoint: endpoint, ceilings: map[string]int{}, max: 1, limit: 1, rpm: rpm, tpm: tpm, window: window, wake: make(chan struct{})}
}

// Join adds a role's ceiling of calls in flight (at least 1) and rate
// limits: the ceilings add up, the tightest rate limits count.
func (l *Limiter) Join(role string, ceiling, rpm, tpm int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := len(l.ceilings) == 0
	l.ceilings[role] = max(l.ceilings[role], ceiling, 1)
	total := 0
	for _, c := range l.ceilings {
		total += c
	}
	grow := float64(total - l.max)
	l.max = total
	if first {
		l.limit = float64(total)
	} else if grow > 0 {
		l.limit += grow
	}
	l.rpm = tighter(l.rpm, rpm)
	l.tpm = tighter(l.tpm, tpm)
	l.stats.History = append(l.stats.History, LimitPoint{At: time.Now(), Limit: int(l.limit)})
}

func tighter(a, b int) int {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

// Acquire waits for a call slot: below the limit, past any Retry-After, with
// room in the request and token windows for a call of about tokens tokens.
// A context that ends first returns its error.
func (l *Limiter) Acquire(ctx context.Context, tokens int) error {
	start := time.Now()
	for {
		ok, wait, wake := l.try(start, tokens)
		if ok {
			return nil
		}
		if err := sleepOrWake(ctx, wait, wake); err != nil {
			return err
		}
	}
}

// TryAcquire takes a call slot if one is free now.
func (l *Limiter) TryAcquire(tokens int) bool {
	ok, _, _ := l.try(time.Now(), tokens)
	return ok
}

// try takes a slot, or says how long to wait (waitFor) and what wakes it.
func (l *Limiter) try(start time.Time, tokens int) (bool, time.Duration, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	wait := l.waitFor(now, tokens)
	if wait != 0 {
		return false, wait, l.wake
	}
	l.inflight++
	l.stats.Calls++
	if l.first.IsZero() {
		l.first = now
	}
	l.sent = append(l.sent, now)
	l.stats.Waited += now.Sub(start)
	return true, 0, nil
}

// sleepOrWake waits for wake, or wait when it is positive, or ctx's end.
func sleepOrWake(ctx context.Context, wait time.Duration, wake <-chan struct{}) error {
	var timer <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
	case <-timer:
	}
	return nil
}

// waitFor is how long a call must wait from now: 0 none, -1 until a slot
// frees (a Release), else the time until a hold or a window allows it.
func (l *Limiter) waitFor(now time.Time, tokens int) time.Duration {
	var wait time.Duration
	if now.Before(l.hold) {
		wait = l.hold.Sub(now)
	}
	cut := now.Add(-l.window)
	for len(l.sent) > 0 && !l.sent[0].After(cut) {
		l.sent = l.sent[1:]
	}
	if rpm := tighter(l.rpm, l.learnt); rpm > 0 && len(l.sent) >= rpm {
		wait = max(wait, l.sent[len(l.sent)-rpm].Add(l.window).Sub(now))
	}
	for len(l.spent) > 0 && !l.spent[0].at.After(cut) {
		l.spent = l.spent[1:]
	}
	if l.tpm > 0 {
		used := 0
		for _, s := range l.spent {
			used += s.n
		}
		// A call bigger than the whole window still goes once the window is empty.
		for i := 0; used+tokens > l.tpm && i < len(l.spent); i++ {
			used -= l.spent[i].n
			wait = max(wait, l.spent[i].at.Add(l.window).Sub(now))
		}
	}
	if wait > 0 {
		return wait
	}
	if l.inflight >= int(math.Floor(l.limit)) {
		return -1
	}
	return 0
}

// Outcome is how a call ended, for the limiter.
type Outcome int

// Outcomes.
const (
	Succeeded   Outcome = iota // answered (whatever the reply held)
	RateLimited                // 429
	TimedOut                   // no answer in time
	Failed                     // another failure: the limit stays
)

// Release ends a call: the limit grows by one a round of successful calls
// (1/limit a success), halves on a 429 or a timeout, and a
// Retry-After holds the endpoint. tokens are the call's tokens, for the TPM
// window.
func (l *Limiter) Release(ctx context.Context, o Outcome, retryAfter time.Duration, tokens int) {
	l.mu.Lock()
	now := time.Now()
	l.inflight--
	if l.tpm > 0 && tokens > 0 {
		l.spent = append(l.spent, spentTokens{at: now, n: tokens})
	}
	before := int(math.Floor(l.limit))
	reason := ""
	switch o {
	case Succeeded:
		l.limit = min(l.limit+1/l.limit, float64(l.max))
		l.answered = append(l.answered, now)
		// A quiet window after a refusal: probe for more (clinevo's own step, a
		// twentieth of the learnt rate, at least one request).
		if l.learnt > 0 && now.Sub(l.lastCut) > l.window {
			l.learnt += max(1, l.learnt/20)
		}
	case RateLimited, TimedOut:
		l.limit = max(1, l.limit/2)
		l.lastCut = now
		if o == RateLimited {
			l.learnLocked(now)
			l.stats.RateLimited++
			reason = "rate limited"
			if retryAfter > 0 && now.Add(retryAfter).After(l.hold) {
				l.hold = now.Add(retryAfter)
			}
		} else {
			l.stats.Timeouts++
			reason = "timed out"
		}
	}
	after := int(math.Floor(l.limit))
	if after != before {
		l.stats.History = append(l.stats.History, LimitPoint{At: now, Limit: after})
		if len(l.stats.History) > maxHistory {
			l.stats.History = l.stats.History[len(l.stats.History)-maxHistory:]
		}
	}
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
	ep := metric.WithAttributes(attribute.String("endpoint", l.Endpoint))
	if o == RateLimited {
		limited.Add(ctx, 1, ep)
	}
	if after != before {
		limitGauge.Record(ctx, int64(after), ep)
		if after < before {
			slog.Info("model endpoint limit lowered", "endpoint", l.Endpoint, "limit", after, "was", before, "reason", reason, "retry_after", retryAfter)
		}
	}
}

// learnLocked takes the rate the endpoint answered in the last window as
// its limit: the requests answered in the window, extrapolated to a whole
// window when the limiter is younger than one (a refusal seconds after the
// start says little about a minute). Nothing answered: nothing to learn.
func (l *Limiter) learnLocked(now time.Time) {
	cut := now.Add(-l.window)
	for len(l.answered) > 0 && !l.answered[0].After(cut) {
		l.answered = l.answered[1:]
	}
	n := float64(len(l.answered))
	if n == 0 {
		return // refused before any answer: Retry-After alone says when to come back
	}
	if age := now.Sub(l.first); age > 0 && age < l.window {
		n *= float64(l.window) / float64(age)
	}
	l.learnt = max(1, int(n))
	l.stats.LearntRate = l.learnt
}

// Limit is the endpoint's limit of calls in flight now.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(math.Floor(l.limit))
}

// Stats returns the endpoint's figures.
func (l *Limiter) Stats() LimiterStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Endpoint, s.Limit, s.Max, s.InFlight, s.LearntRate = l.Endpoint, int(math.Floor(l.limit)), l.max, l.inflight, l.learnt
	s.History = append([]LimitPoint(nil), l.stats.History...)
	return s
}

// limiters are this process's endpoints' limiters.
var limiters = struct {
	sync.Mutex
	m map[string]*Limiter
}{m: map[string]*Limiter{}}

// limiterOf is the shared limiter of an endpoint, joined by a role's limits.
func limiterOf(endpoint, role string, ceiling, rpm, tpm int, window time.Duration) *Limiter {
	limiters.Lock()
	defer limiters.Unlock()
	l, ok := limiters.m[endpoint]
	if !ok {
		l = NewLimiter(endpoint, rpm, tpm, window)
		limiters.m[endpoint] = l
	}
	l.Join(role, ceiling, rpm, tpm)
	return l
}

// EndpointStats are the figures of every endpoint this process called, by
// endpoint name.
func EndpointStats() []LimiterStats {
	limiters.Lock()
	ls := make([]*Limiter, 0, len(limiters.m))
	for _, l := range limiters.m {
		ls = append(ls, l)
	}
	limiters.Unlock()
	out := make([]LimiterStats, len(ls))
	for i, l := range ls {
		out[i] = l.Stats()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Endpoint < out[j].Endpoint })
	return out
}
