package durability_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/internal/tcpproxy"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/qdrant"
	"github.com/clinevo/clinevo/memory/qdrant/qdranttest"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/postgres"
	"github.com/clinevo/clinevo/results/postgres/pgtest"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// outage is how long each dependency stays away: longer than the 63 s in
// which a local activity's own retries used to give up (1+2+4+8+16+32 s
// within its 120 s start-to-close timeout).
const outage = 70 * time.Second

// doctorKey is the model doctor's key: no log line may hold it.
const doctorKey = "sk-outage-doctor-7f3a"

// logs keeps the SDK's log lines of a worker (its workflows' and
// activities').
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) add(level, msg string, kv ...any) {
	line := level + " " + msg
	for i := 0; i+1 < len(kv); i += 2 {
		line += fmt.Sprintf(" %v=%v", kv[i], kv[i+1])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}
func (l *logs) Debug(msg string, kv ...any) {}
func (l *logs) Info(msg string, kv ...any)  { l.add("INFO", msg, kv...) }
func (l *logs) Warn(msg string, kv ...any)  { l.add("WARN", msg, kv...) }
func (l *logs) Error(msg string, kv ...any) { l.add("ERROR", msg, kv...) }

func (l *logs) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// dependency is one thing a run depends on, behind a proxy that takes it away.
type dependency struct {
	name  string // the waiter's dependency: what stream status says it waits for
	setup func(t *testing.T) world
}

// world is where a dependency's outage is played.
type world struct {
	env, ref *enginetest.Env   // the outage run's worker (through the proxy) and the reference run's
	proxy    *tcpproxy.Proxy   // between env's worker and the dependency
	settings settings.Settings // the run's
	store    results.Store     // env's results, read around the proxy
	logs     *logs             // env's worker's SDK log lines
	secret   string            // what no log line may hold
}

func shortBackoff(s settings.Settings) settings.Settings {
	// A short backoff cap keeps the test short: once the dependency is back
	// the run goes on within two seconds.
	s.Durability = settings.Durability{MaxOutage: settings.Duration(10 * time.Minute), MaxBackoff: settings.Duration(2 * time.Second)}
	return s
}

func countRecords(store results.Store, run string) int {
	recs, err := store.Records(context.Background(), run)
	if err != nil {
		return -1
	}
	return len(recs)
}

// TestOutagesAreWaitedOut takes away, in the middle of a stream, the results
// database (PostgreSQL), the model endpoint of the doctor (an in-process
// OpenAI-compatible server) and the Qdrant bank, each for 70 s and each
// behind a loopback proxy that only its run's worker goes through, so the
// database and the servers themselves stay up for everyone else. During the
// outage `stream status` says waiting, with the dependency, its class, since
// when and the attempts, and `temporal workflow list` finds the waiting
// workflow by ClinevoWaiting; the worker logs a line per backoff with the
// dependency and class, and no key or password. Once the dependency is back
// the stream finishes with records, traces and cards identical to a run that
// never saw the outage. The three outages are one: they start and end
// together, so the test lasts one outage, not three.
func TestOutagesAreWaitedOut(t *testing.T) {
	if testing.Short() {
		t.Skip("the outage lasts 70 s")
	}
	t.Parallel()                                                 // see TestMain
	enginetest.Setenv(t, "CLINEVO_OUTAGE_DOCTOR_KEY", doctorKey) // this test's own variable
	deps := []dependency{
		{name: postgres.Dependency, setup: func(t *testing.T) world {
			direct := pgtest.Fresh(t)
			u, err := url.Parse(direct)
			require.NoError(t, err)
			proxy := tcpproxy.Start(t, u.Host)
			u.Host = proxy.Addr()
			pw := os.Getenv(pgtest.EnvPassword)
			l := &logs{}
			env := enginetest.StartSetup(t, enginetest.Setup{Logger: l, Postgres: &postgres.Config{DSN: u.String(), Password: pw}})
			store, err := postgres.Open(context.Background(), postgres.Config{DSN: direct, Password: pw})
			require.NoError(t, err)
			t.Cleanup(func() { store.Close() })
			return world{env: env, ref: enginetest.Start(t), proxy: proxy, settings: shortBackoff(settings.Default()), store: store, logs: l, secret: pw}
		}},
		{name: "model roles.doctor", setup: func(t *testing.T) world {
			srv := llmtest.New(t)
			proxy := tcpproxy.Start(t, strings.TrimPrefix(srv.URL, "http://"))
			s := shortBackoff(settings.Default())
			s.Roles["doctor"] = settings.Role{Backend: settings.OpenAI, BaseURL: "http://" + proxy.Addr() + "/v1", Model: "fake-doctor", JSONMode: true,
				Format: "json", Timeout: settings.Duration(5 * time.Second), Concurrency: 4, APIKeyEnv: "CLINEVO_OUTAGE_DOCTOR_KEY"}
			l := &logs{}
			env := enginetest.StartWith(t, l)
			return world{env: env, ref: enginetest.Start(t), proxy: proxy, settings: s, store: env.Engine.Results, logs: l, secret: doctorKey}
		}},
		{name: qdrant.Dependency, setup: func(t *testing.T) world {
			onQdrant := func(host string, port int) func(*engine.Engine) {
				return func(e *engine.Engine) {
					st, err := qdrant.Open(context.Background(), qdrant.Config{Host: host, Port: port}, memory.HashEmbedder{}, true)
					require.NoError(t, err)
					t.Cleanup(func() { st.Close() })
					e.Memory.Close() // the embedded bank the engine opened is not used
					e.Memory, e.Activities.Memory, e.Activities.MemoryBackend = st, st, "qdrant"
				}
			}
			srv := qdranttest.Start(t)
			proxy := tcpproxy.Start(t, net.JoinHostPort(srv.Host, strconv.Itoa(srv.Port)))
			ref := qdranttest.Start(t)
			s := shortBackoff(settings.Default())
			s.Memory.Backend = "qdrant"
			l := &logs{}
			env := enginetest.StartWith(t, l, onQdrant("127.0.0.1", proxy.Port()))
			return world{env: env, ref: enginetest.StartWith(t, &logs{}, onQdrant(ref.Host, ref.Port)), proxy: proxy, settings: s,
				store: env.Engine.Results, logs: l}
		}},
	}
	ctx := context.Background()
	if os.Getenv(pgtest.EnvDSN) == "" && os.Getenv("CI") == "" {
		// Without PostgreSQL (and outside CI, which requires it) the other
		// two outages are played all the same.
		t.Log("no PostgreSQL test database (" + pgtest.EnvDSN + "): the results database's outage is not played; run .ci/run for it")
		deps = deps[1:]
	}
	outs := make([]*run, len(deps))
	for i, dep := range deps {
		outs[i] = reference(t, dep)
	}
	for _, o := range outs {
		require.NoError(t, o.ref.Get(ctx, &o.want), "%s: the reference run", o.dep.name)
	}
	for _, o := range outs {
		o.start(t)
	}
	// Each dependency goes away once its stream has recorded three episodes.
	enginetest.Eventually(t, 2*time.Minute, "three recorded episodes of every stream", func() bool {
		all := true
		for _, o := range outs {
			if o.down.IsZero() && o.records() >= 3 {
				o.w.proxy.Down()
				o.down = time.Now()
			}
			all = all && !o.down.IsZero()
		}
		return all
	})

	// While its dependency is away each stream waits, and says so.
	enginetest.Eventually(t, outage+time.Minute, fmt.Sprintf("%v of outage", outage), func() bool {
		over := true
		for _, o := range outs {
			if o.up.IsZero() {
				o.poll(t, ctx)
				if time.Since(o.down) > outage {
					o.check(t)
					require.NoError(t, o.w.proxy.Up())
					o.up = time.Now()
				}
			}
			over = over && !o.up.IsZero()
		}
		return over
	})
	for _, o := range outs {
		o.finish(t, ctx)
	}
}

// run is one dependency's outage run and what its polls saw.
type run struct {
	dep           dependency
	w             world
	id            string
	spec          contract.StreamSpec
	want          contract.StreamResult
	ref, r        client.WorkflowRun // the reference run and the outage run
	down, up      time.Time          // when the dependency went away and came back
	polled, polls int                // polls, and polls that saw the stream waiting
	atWait        int                // records when the stream was first seen waiting
	last          contract.Waiting
	listed        bool
	lastPoll      time.Time
}

// pollEvery spaces the status polls of an outage (the test's own choice):
// each one queries the stream workflow, and one every 50 ms (Eventually's
// pace) over 70 s cost more processor time than the three streams played.
const pollEvery = time.Second

func (o *run) records() int { return countRecords(o.w.store, o.id) }

// reference sets a dependency's world up and starts the reference run; the
// test waits for every reference run (they play side by side) before any
// outage run starts, so that no reference run sees an outage (the doctor's
// reference run goes through the proxy too).
func reference(t *testing.T, dep dependency) *run {
	w := dep.setup(t)
	o := &run{dep: dep, w: w, id: "out-" + strings.NewReplacer("/", "-", " ", "-", ".", "-").Replace(dep.name)}
	o.spec = contract.StreamSpec{RunID: o.id, Corpus: "builtin:stream", Limit: 10, StageSize: 5, Settings: w.settings}
	ctx := context.Background()
	var err error
	o.ref, err = engine.StartStream(ctx, w.ref.Client, w.ref.Engine.Results, "", o.spec)
	require.NoError(t, err)
	return o
}

// start starts the outage run.
func (o *run) start(t *testing.T) {
	var err error
	o.r, err = engine.StartStream(context.Background(), o.w.env.Client, o.w.env.Engine.Results, "", o.spec)
	require.NoError(t, err)
}

// check looks at what the polls of the outage saw.
func (o *run) check(t *testing.T) {
	name := o.dep.name
	require.Positive(t, o.polls, "%s: stream status said waiting during the outage", name)
	require.True(t, o.listed, "%s: temporal workflow list finds the waiting workflow by ClinevoWaiting", name)
	require.Contains(t, []string{"unavailable", "timeout", "unknown"}, o.last.Class, name)
	require.WithinDuration(t, o.down, o.last.Since, 30*time.Second, name)
	require.Greater(t, o.last.Attempts, 20, "%s: backoffs of at most 2 s over 70 s", name)
	require.Equal(t, o.atWait, o.records(), "%s: nothing was recorded while the stream waited", name)
	t.Logf("%s: away %v; waiting in %d of %d polls; last: %d attempts, class %s, since %v", name, time.Since(o.down).Round(time.Second),
		o.polls, o.polled, o.last.Attempts, o.last.Class, o.last.Since.Format(time.RFC3339))
}

// poll reads stream status as the command line does, and looks the waiting
// workflow up by its search attribute.
func (o *run) poll(t *testing.T, ctx context.Context) {
	if time.Since(o.lastPoll) < pollEvery {
		return
	}
	o.lastPoll = time.Now()
	st, err := runstatus.StreamOf(ctx, o.w.env.Client, o.id)
	require.NoError(t, err)
	require.Equal(t, "Running", st.TemporalStatus, "%s: the stream does not fail while its dependency is away", o.dep.name)
	o.polled++
	if st.Status == runstatus.StatusWaiting {
		if o.polls == 0 {
			o.atWait = o.records()
		}
		o.polls++
		o.last = st.Waiting[0]
		require.Equal(t, o.dep.name, o.last.Dependency, "%+v", o.last)
	}
	if !o.listed {
		resp, err := o.w.env.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("ClinevoWaiting = %q AND ClinevoRun = %q", o.dep.name, o.id)})
		o.listed = err == nil && len(resp.Executions) > 0
	}
}

// finish waits for the stream and compares it with the reference run.
func (o *run) finish(t *testing.T, ctx context.Context) {
	var got contract.StreamResult
	require.NoError(t, o.r.Get(ctx, &got), "%s: the stream finishes once the dependency is back", o.dep.name)
	t.Logf("%s: done within %v of the dependency's return", o.dep.name, time.Since(o.up).Round(100*time.Millisecond))
	require.Equal(t, o.want, got)
	enginetest.RequireSameRun(t, o.w.ref.Engine, o.w.env.Engine, o.id)
	st, err := runstatus.StreamOf(ctx, o.w.env.Client, o.id)
	require.NoError(t, err)
	require.Empty(t, st.Waiting)
	lines := o.w.logs.all()
	// The SDK puts the workflow's own fields (namespace, workflow ID, ...)
	// before the line's.
	require.Regexp(t, "waiting for a dependency .*dependency="+regexp.QuoteMeta(o.dep.name)+" class=(unavailable|timeout|unknown) activity=", lines)
	require.Regexp(t, "dependency back .*dependency="+regexp.QuoteMeta(o.dep.name), lines)
	if o.w.secret != "" {
		require.NotContains(t, lines, o.w.secret, "%s: no log line holds the key or password", o.dep.name)
	}
}
