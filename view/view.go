// Package view is clinevo's local, read-only web viewer: runs and experiments
// with their status (Temporal's, or the results store's where Temporal has
// none) and scores, the live progress of running streams, a run's
// stage curves and rule book as of any stage, an episode turn by turn with its
// scores explained, the memory bank as of any episode, and an experiment's
// report built from the results store on each request. It reads the results
// store, the memory bank and Temporal, and writes none of them.
package view

import (
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Options are what the viewer reads and how it is reached.
type Options struct {
	// Benchmarks are the build's benchmarks: each run's pages read its
	// events, scores and report through the one its settings select.
	Benchmarks bench.Set
	Results    results.Store
	Memory     memory.Store
	// Workflows answers status and progress questions; nil: the pages show
	// the results store's status of each run, noting that no Temporal is
	// configured.
	Workflows Workflows
	// TemporalAddress and Namespace spell the `temporal workflow show`
	// command of an episode's history.
	TemporalAddress string
	Namespace       string
	// TemporalUI is the base URL of a Temporal Web UI; empty: no UI links.
	TemporalUI string
	// Token, when set, must be carried by every request: an Authorization
	// Bearer header, a ?token= parameter (which sets a cookie), or the cookie.
	Token string
	// Listen is the address the viewer serves (host:port): a request whose
	// Host header names another host is refused, so that a page of another
	// site whose name its owner points at this address (DNS rebinding)
	// cannot read it. On a loopback address only loopback IPs and localhost
	// are taken; on a named host that name and IP literals; on every
	// interface (0.0.0.0, which needs a token) any. Empty: no check.
	Listen string
}

// Server serves the viewer's pages. It is an http.Handler.
type Server struct {
	o       Options
	mux     *http.ServeMux
	pages   *template.Template
	mu      sync.Mutex
	corpora corpus.Cache // loaded once, for replays of retrieval and reports
	// downUntil: Temporal failed to answer; it is not asked again before.
	downUntil time.Time
	downWhy   string
}

// tokenCookie holds the token in the browser after a ?token= visit.
const tokenCookie = "clinevo_view_token"

// New returns the viewer over o's stores.
func New(o Options) (*Server, error) {
	pages, err := template.New("").Funcs(funcs).ParseFS(templateFiles, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("view: templates: %w", err)
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("view: assets: %w", err)
	}
	s := &Server{o: o, mux: http.NewServeMux(), pages: pages, corpora: corpus.Cache{Library: corpus.NewLibrary(o.Benchmarks)}}
	s.mux.Handle("/static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("/{$}", s.render("index", s.index))
	s.mux.HandleFunc("/part/runs", s.render("runs", s.index))
	s.mux.HandleFunc("/run", s.render("run", s.run))
	s.mux.HandleFunc("/part/run", s.render("runstatus", s.run))
	s.mux.HandleFunc("/episode", s.render("episode", s.episode))
	s.mux.HandleFunc("/memory", s.render("memory", s.memory))
	s.mux.HandleFunc("/card", s.render("card", s.card))
	s.mux.HandleFunc("/experiment", s.render("experiment", s.experiment))
	s.mux.HandleFunc("/part/experiment", s.render("experimentlive", s.experiment))
	s.mux.HandleFunc("/compare", s.render("compare", s.compare))
	s.mux.HandleFunc("/compare/episode", s.render("episodepair", s.episodePair))
	return s, nil
}

// ServeHTTP answers GET and HEAD only (the viewer changes nothing), and with a
// token configured only requests that carry it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "clinevo view is read-only: "+r.Method+" is not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !hostAllowed(s.o.Listen, r.Host) {
		http.Error(w, fmt.Sprintf("clinevo view: host %q is not this viewer's address (%s): open it by that address", r.Host, s.o.Listen), http.StatusMisdirectedRequest)
		return
	}
	if !s.authorized(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// hostAllowed reports whether a request's Host header may reach a viewer
// listening on listen (Options.Listen).
func hostAllowed(listen, host string) bool {
	if listen == "" {
		return true
	}
	lh, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	lip := net.ParseIP(lh)
	switch {
	case lh == "" || (lip != nil && lip.IsUnspecified()):
		return true // every interface: the token guards it (CheckListen)
	case lh == "localhost" || (lip != nil && lip.IsLoopback()):
		ip := net.ParseIP(h)
		return strings.EqualFold(h, "localhost") || (ip != nil && ip.IsLoopback())
	}
	return net.ParseIP(h) != nil || strings.EqualFold(h, lh)
}

// authorized checks the token. A valid ?token= sets the cookie and redirects
// to the same page without it, so the token leaves the address bar and the
// history; it reports false when it has answered the request itself.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.o.Token == "" {
		return true
	}
	same := func(t string) bool { return subtle.ConstantTimeCompare([]byte(t), []byte(s.o.Token)) == 1 }
	// The scheme's name is case-insensitive (RFC 9110 §11.1).
	if scheme, t, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "Bearer") && same(strings.TrimSpace(t)) {
		return true
	}
	if c, err := r.Cookie(tokenCookie); err == nil && same(c.Value) {
		return true
	}
	q := r.URL.Query()
	if t := q.Get("token"); t != "" && same(t) {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.o.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	http.Error(w, "clinevo view: this viewer needs its token (Authorization: Bearer TOKEN, or ?token=TOKEN once)", http.StatusUnauthorized)
	return false
}

// MinTokenLength is the shortest token that may guard a viewer other
// machines can reach: 16 characters, what `openssl rand -hex 8` prints
// (clinevo's own choice).
const MinTokenLength = 16

// CheckListen refuses an address other machines can reach unless a strong
// token guards it (MinTokenLength characters, no spaces). Loopback
// addresses (127.0.0.0/8, ::1, localhost) need none.
func CheckListen(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("view: listen address %q: want host:port (%w)", addr, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	switch {
	case token == "":
		return fmt.Errorf("view: listen address %q is not loopback: serving other machines needs --token (every request must then carry it)", addr)
	case len(token) < MinTokenLength || strings.IndexFunc(token, unicode.IsSpace) >= 0:
		return fmt.Errorf("view: the token (--token or %s) is too weak to guard %q, which other machines can reach: "+
			"a token takes at least %d characters and no spaces (e.g. openssl rand -hex 16)", "CLINEVO_VIEW_TOKEN", addr, MinTokenLength)
	}
	return nil
}

// loader builds a page's data from a request; an error it returns is shown
// with its status.
type loader func(ctx context.Context, r *http.Request) (any, error)

// render serves a page, or a fragment that a live page reloads in place. The
// header X-Clinevo-Live: 0 says that nothing on it is running any more, so
// the page stops polling.
func (s *Server) render(name string, load loader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := load(r.Context(), r)
		if err != nil {
			status := http.StatusInternalServerError
			var re *requestError
			switch {
			case errors.As(err, &re):
				status = re.status
			case errors.Is(err, results.ErrNotFound), errors.Is(err, memory.ErrNotFound):
				status = http.StatusNotFound
			}
			http.Error(w, err.Error(), status)
			return
		}
		if l, ok := data.(interface{ Live() bool }); ok && !l.Live() {
			w.Header().Set("X-Clinevo-Live", "0")
		}
		var b strings.Builder
		if err := s.pages.ExecuteTemplate(&b, name, data); err != nil {
			http.Error(w, "view: render "+name+": "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = fmt.Fprint(w, b.String()) // a failed write is the client gone; nothing to tell it
	}
}

// requestError is a bad or unknown page address.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &requestError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}
