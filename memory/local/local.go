// Package local is the embedded memory bank: cards in a SQLite file
// (modernc.org/sqlite, pure Go) with exact cosine search over an in-memory copy
// of the vectors and filter fields (index.go).
package local

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/internal/sqlitefault"
	"github.com/clinevo/clinevo/internal/sqliteuri"
	"github.com/clinevo/clinevo/memory"
)

// Store is a memory.Store on one SQLite file. It holds a single connection so
// that PRAGMA data_version reveals writes by other processes, which trigger a
// reload of the in-memory index.
type Store struct {
	db   *sql.DB
	emb  memory.Embedder
	path string

	mu      sync.Mutex
	version int64
	index   *index
	// read holds the cards searches returned, as the file has them, so that
	// the next search that finds them reads no row: a retrieval is two
	// searches a turn, and reading the hits' rows was 58% of a built-in
	// episode's time with 300 cards (docs/performance.md). Writes of this
	// store apply to it as they apply to the file; a write by another
	// process (reload) empties it. Guarded by mu.
	read map[string]clinic.Card
	// utility is the column (or, in a reader of a file from before
	// utilities, the constant) the cards' utility histories are read from.
	utility string
}

// readCap bounds the cards read holds; a search that finds it full empties
// it first (clinevo's choice: a few MB of cards, far more than the hits of a
// stream's searches, which come back to the same cards).
const readCap = 10000

var _ memory.Store = (*Store)(nil)

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cards (
  id TEXT PRIMARY KEY,
  run TEXT NOT NULL, bank TEXT NOT NULL, kind TEXT NOT NULL,
  pass INTEGER NOT NULL, stage INTEGER NOT NULL, source_case TEXT NOT NULL,
  created_episode INTEGER NOT NULL, evicted_episode INTEGER NOT NULL DEFAULT 0,
  retrievals INTEGER NOT NULL DEFAULT 0, last_retrieved INTEGER NOT NULL DEFAULT 0,
  body TEXT NOT NULL, vector BLOB NOT NULL, utility TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS cards_run ON cards(run, created_episode);
`

// Dependency names this store in failures and waits.
const Dependency = "memory/local"

// Open opens or creates a bank file. The embedder's model and dimension are
// recorded on creation; opening with a different embedder is an error.
func Open(ctx context.Context, path string, emb memory.Embedder) (*Store, error) {
	return open(ctx, path, emb, false)
}

// OpenReader opens an existing bank file read-only, for a process that only
// reads: it creates no table and records no embedder, so a file the reader
// may not write is read all the same.
func OpenReader(ctx context.Context, path string, emb memory.Embedder) (*Store, error) {
	return open(ctx, path, emb, true)
}

func open(ctx context.Context, path string, emb memory.Embedder, reader bool) (*Store, error) {
	if err := sqlitefault.CheckFile(Dependency, path); err != nil {
		return nil, fmt.Errorf("memory: open %s: %w", path, err)
	}
	dsn := sqliteuri.File(path, "_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)")
	if reader {
		dsn = sqliteuri.File(path, "mode=ro&_pragma=busy_timeout(10000)")
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("memory/local: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, emb: emb, path: path}
	if err := s.init(ctx, reader); err != nil {
		db.Close()
		return nil, s.fail(fmt.Errorf("memory/local: open %s: %w", path, err))
	}
	return s, nil
}

// fail classifies a failure of the file (sqlitefault); nil and a missing
// card stay as they are, and a failure of the embedder keeps its own class.
func (s *Store) fail(err error) error {
	if errors.Is(err, memory.ErrNotFound) {
		return err
	}
	return sqlitefault.Tag(Dependency, s.path, err)
}

func (s *Store) init(ctx context.Context, reader bool) error {
	if !reader {
		if err := sqlitefault.WAL(ctx, s.db); err != nil {
			return err
		}
		if _, err := s.db.ExecContext(ctx, schema); err != nil {
			return err
		}
	}
	if err := s.utilityColumn(ctx, reader); err != nil {
		return err
	}
	want := fmt.Sprintf("%s/%d", s.emb.Model(), s.emb.Dim())
	var have string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='embedder'`).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows) && !reader:
		if _, err := s.db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES('embedder', ?)`, want); err != nil {
			return err
		}
	case errors.Is(err, sql.ErrNoRows): // a reader of a bank nothing was written to yet
	case err != nil:
		return err
	case have != want:
		return fault.Permanent(Dependency, fault.Schema, "start the worker with the embedder the bank was built with (roles.embeddings, memory.dim)",
			fmt.Errorf("embedder mismatch: the bank was built with %s, this store uses %s", have, want))
	}
	return s.reload(ctx)
}

// utilityColumn adds the utility column to a file from before utilities
// (its cards have none: the initial utility); a reader, which may not
// write, reads every card's history as empty instead.
func (s *Store) utilityColumn(ctx context.Context, reader bool) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info('cards') WHERE name='utility'`).Scan(&n); err != nil {
		return err
	}
	s.utility = "utility"
	switch {
	case n > 0:
	case reader:
		s.utility = "''"
	default:
		if _, err := s.db.ExecContext(ctx, `ALTER TABLE cards ADD COLUMN utility TEXT NOT NULL DEFAULT ''`); err != nil {
			return fmt.Errorf("add the utility column: %w", err)
		}
	}
	return nil
}

func (s *Store) dataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v)
	return v, err
}

// reload rebuilds the in-memory index from the file's filter columns and
// vectors. Callers hold s.mu or own s.
func (s *Store) reload(ctx context.Context) error {
	v, err := s.dataVersion(ctx)
	if err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, run, bank, kind, pass, stage, created_episode, evicted_episode, vector FROM cards ORDER BY rowid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	ix := newIndex(s.emb.Dim())
	for rows.Next() {
		var c clinic.Card
		var blob []byte
		if err := rows.Scan(&c.ID, &c.Run, &c.Bank, &c.Kind, &c.Pass, &c.Stage, &c.CreatedEpisode, &c.EvictedEpisode, &blob); err != nil {
			return err
		}
		vec := decodeVec(blob)
		if err := checkVector("card "+c.ID, vec, ix.dim); err != nil {
			return err
		}
		ix.set(&c, vec)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	s.index, s.version, s.read = ix, v, nil
	return nil
}

// fresh reloads the index if another process wrote to the file.
func (s *Store) fresh(ctx context.Context) error {
	v, err := s.dataVersion(ctx)
	if err != nil {
		return err
	}
	if v != s.version {
		return s.reload(ctx)
	}
	return nil
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// Upsert writes cards in one transaction. An existing card keeps its eviction
// and retrieval counters, so replaying a write never resurrects or resets a card.
func (s *Store) Upsert(ctx context.Context, cards []clinic.Card) (err error) {
	defer func() { err = s.fail(err) }()
	if len(cards) == 0 {
		return nil
	}
	texts := make([]string, len(cards))
	for i, c := range cards {
		if c.ID == "" {
			return fmt.Errorf("memory/local: upsert: card %d has no id", i)
		}
		texts[i] = c.SearchText
	}
	vecs, err := s.emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("memory/local: upsert: embed: %w", err)
	}
	if len(vecs) != len(cards) {
		return fmt.Errorf("memory/local: upsert: the embedder returned %d vectors for %d cards", len(vecs), len(cards))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fresh(ctx); err != nil {
		return fmt.Errorf("memory/local: upsert: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory/local: upsert: %w", err)
	}
	defer tx.Rollback()
	for i, c := range cards {
		if err := checkVector("card "+c.ID, vecs[i], s.emb.Dim()); err != nil {
			return fmt.Errorf("memory/local: upsert: %w", err)
		}
		c.EvictedEpisode, c.Retrievals, c.LastRetrieved, c.Utility = 0, 0, 0, nil
		body, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("memory/local: upsert: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO cards(id, run, bank, kind, pass, stage, source_case, created_episode, body, vector)
			VALUES(?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT(id) DO UPDATE SET run=excluded.run, bank=excluded.bank, kind=excluded.kind, pass=excluded.pass,
			  stage=excluded.stage, source_case=excluded.source_case, created_episode=excluded.created_episode,
			  body=excluded.body, vector=excluded.vector`,
			c.ID, c.Run, c.Bank, string(c.Kind), c.Pass, c.Stage, c.SourceCase, c.CreatedEpisode, string(body), encodeVec(vecs[i]))
		if err != nil {
			return fmt.Errorf("memory/local: upsert %s: %w", c.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory/local: upsert: %w", err)
	}
	for i := range cards {
		c := cards[i]
		c.EvictedEpisode = 0 // a new card is live; a rewritten one keeps its eviction
		s.index.set(&c, vecs[i])
		delete(s.read, c.ID)
	}
	return nil
}

// Search scores the cards the filter selects by exact cosine similarity
// (memory.Cosine) and returns the best K, ties broken by ID.
func (s *Store) Search(ctx context.Context, q memory.Query) (_ []memory.Hit, err error) {
	defer func() { err = s.fail(err) }()
	vecs, err := s.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("memory/local: search: embed: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("memory/local: search: the embedder returned %d vectors for one query", len(vecs))
	}
	if err := checkVector("query", vecs[0], s.emb.Dim()); err != nil {
		return nil, fmt.Errorf("memory/local: search: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fresh(ctx); err != nil {
		return nil, fmt.Errorf("memory/local: search: %w", err)
	}
	found := s.index.search(vecs[0], q.Filter, q.K)
	ids := make([]string, len(found))
	for i, r := range found {
		ids[i] = s.index.ids[r.p]
	}
	cards, err := s.readCards(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("memory/local: search: %w", err)
	}
	hits := make([]memory.Hit, len(found))
	for i, r := range found {
		memory.UtilityAsOf(&cards[i], q.Filter)
		hits[i] = memory.Hit{Card: cards[i], Score: r.score}
	}
	return hits, nil
}

// readCards returns cards by ID, in the order asked, from s.read where it
// holds them and from the file otherwise; each is a copy a caller may
// change. Callers hold s.mu, so that no write of this store falls between
// reading a row and keeping it.
func (s *Store) readCards(ctx context.Context, ids []string) ([]clinic.Card, error) {
	var missing []string
	for _, id := range ids {
		if _, ok := s.read[id]; !ok {
			missing = append(missing, id)
		}
	}
	got, err := s.getMany(ctx, missing)
	if err != nil {
		return nil, err
	}
	if s.read == nil || len(s.read)+len(got) > readCap {
		s.read = make(map[string]clinic.Card, len(got))
	}
	for _, c := range got {
		s.read[c.ID] = c
	}
	out := make([]clinic.Card, len(ids))
	for i, id := range ids {
		out[i] = cloneCard(s.read[id])
	}
	return out, nil
}

// cloneCard copies a card's lists, so that a caller that changes the card
// it got changes nothing s.read holds.
func cloneCard(c clinic.Card) clinic.Card {
	h := &c.CardHint
	for _, l := range []*[]string{&h.Ask, &h.Tests, &h.Evidence, &h.Plan, &h.Followup, &h.Calls} {
		*l = slices.Clone(*l)
	}
	c.Utility = slices.Clone(c.Utility)
	return c
}

// getMany returns cards by ID, in the order asked, in one query per 500 IDs.
func (s *Store) getMany(ctx context.Context, ids []string) ([]clinic.Card, error) {
	out := make([]clinic.Card, 0, len(ids))
	for start := 0; start < len(ids); start += 500 {
		cards, err := s.getChunk(ctx, ids[start:min(start+500, len(ids))])
		if err != nil {
			return nil, err
		}
		out = append(out, cards...)
	}
	return out, nil
}

func (s *Store) getChunk(ctx context.Context, ids []string) ([]clinic.Card, error) {
	args := make([]any, len(ids))
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		args[i], at[id] = id, i
	}
	rows, err := s.db.QueryContext(ctx, `SELECT body, evicted_episode, retrievals, last_retrieved, `+s.utility+` FROM cards WHERE id IN (?`+
		strings.Repeat(",?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]clinic.Card, len(ids))
	found := 0
	for rows.Next() {
		c, err := scanCard(rows)
		if err != nil {
			return nil, err
		}
		out[at[c.ID]] = c
		found++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if found != len(at) {
		return nil, fmt.Errorf("get %d cards: %d found: %w", len(at), found, memory.ErrNotFound)
	}
	return out, nil
}

// scanCard reads a card from a row of body, evicted_episode, retrievals,
// last_retrieved, utility.
func scanCard(row interface{ Scan(...any) error }) (clinic.Card, error) {
	var body, utility string
	var c clinic.Card
	var ev, ret, last int
	if err := row.Scan(&body, &ev, &ret, &last, &utility); err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		return c, err
	}
	c.EvictedEpisode, c.Retrievals, c.LastRetrieved = ev, ret, last
	u, err := decodeUtility(utility)
	if err != nil {
		return c, fmt.Errorf("card %s: %w", c.ID, err)
	}
	c.Utility = u
	return c, nil
}

// decodeUtility reads a utility column: empty for a card never credited.
func decodeUtility(v string) ([]clinic.Utility, error) {
	if v == "" {
		return nil, nil
	}
	var u []clinic.Utility
	if err := json.Unmarshal([]byte(v), &u); err != nil {
		return nil, fmt.Errorf("utility: %w", err)
	}
	return u, nil
}

// Get returns one card.
func (s *Store) Get(ctx context.Context, id string) (_ clinic.Card, err error) {
	defer func() { err = s.fail(err) }()
	c, err := scanCard(s.db.QueryRowContext(ctx, `SELECT body, evicted_episode, retrievals, last_retrieved, `+s.utility+` FROM cards WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return clinic.Card{}, fmt.Errorf("memory/local: get %s: %w", id, memory.ErrNotFound)
	}
	if err != nil {
		return clinic.Card{}, fmt.Errorf("memory/local: get %s: %w", id, err)
	}
	return c, nil
}

// List returns the selected cards ordered by creation episode, then ID.
func (s *Store) List(ctx context.Context, f memory.Filter) (_ []clinic.Card, err error) {
	defer func() { err = s.fail(err) }()
	s.mu.Lock()
	if err := s.fresh(ctx); err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("memory/local: list: %w", err)
	}
	ix := s.index
	ps := ix.list(f)
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if ix.meta[a].created != ix.meta[b].created {
			return ix.meta[a].created < ix.meta[b].created
		}
		return ix.ids[a] < ix.ids[b]
	})
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = ix.ids[p]
	}
	s.mu.Unlock()
	cards, err := s.getMany(ctx, ids)
	for i := range cards {
		memory.UtilityAsOf(&cards[i], f)
	}
	return cards, err
}

// Evict soft-deletes cards at an episode.
func (s *Store) Evict(ctx context.Context, ids []string, episode int) error {
	return s.update(ctx, "evict", ids, `UPDATE cards SET evicted_episode=? WHERE id=? AND evicted_episode=0`, episode,
		func(id string) {
			s.index.evict(id, episode)
			if c, ok := s.read[id]; ok && c.EvictedEpisode == 0 {
				c.EvictedEpisode = episode
				s.read[id] = c
			}
		})
}

// MarkRetrieved counts a retrieval once per card per episode.
func (s *Store) MarkRetrieved(ctx context.Context, ids []string, episode int) error {
	// The counters live in the file and in s.read (the statement's own
	// arithmetic): the index does not filter on them.
	return s.update(ctx, "mark retrieved", ids, `UPDATE cards SET retrievals=retrievals+1, last_retrieved=?1 WHERE id=?2 AND last_retrieved<?1`, episode,
		func(id string) {
			if c, ok := s.read[id]; ok && c.LastRetrieved < episode {
				c.Retrievals, c.LastRetrieved = c.Retrievals+1, episode
				s.read[id] = c
			}
		})
}

// Credit adds utility updates in one transaction; the first update of a
// card at an episode wins.
func (s *Store) Credit(ctx context.Context, credits []memory.Credit) (err error) {
	defer func() { err = s.fail(err) }()
	if len(credits) == 0 {
		return nil
	}
	if err := memory.CheckCredits(credits); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fresh(ctx); err != nil {
		return fmt.Errorf("memory/local: credit: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory/local: credit: %w", err)
	}
	defer tx.Rollback()
	changed := map[string][]clinic.Utility{}
	for _, c := range credits {
		if err := credit(ctx, tx, c, changed); err != nil {
			return fmt.Errorf("memory/local: credit %s at episode %d: %w", c.Card, c.Episode, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory/local: credit: %w", err)
	}
	for id, u := range changed {
		if c, ok := s.read[id]; ok {
			c.Utility = u
			s.read[id] = c
		}
	}
	return nil
}

// credit adds one update to a card's history within tx; changed holds the
// histories written so far in the transaction, which the next update of the
// same card extends.
func credit(ctx context.Context, tx *sql.Tx, c memory.Credit, changed map[string][]clinic.Utility) error {
	history, ok := changed[c.Card]
	if !ok {
		var v string
		err := tx.QueryRowContext(ctx, `SELECT utility FROM cards WHERE id=?`, c.Card).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // an unknown card: skipped, as Evict skips one
		}
		if err != nil {
			return err
		}
		if history, err = decodeUtility(v); err != nil {
			return err
		}
	}
	history, added := memory.Credited(history, c.Utility)
	if !added {
		return nil
	}
	v, err := json.Marshal(history)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE cards SET utility=? WHERE id=?`, string(v), c.Card); err != nil {
		return err
	}
	changed[c.Card] = history
	return nil
}

// update runs stmt for every ID in one transaction, then apply for each on the
// index.
func (s *Store) update(ctx context.Context, op string, ids []string, stmt string, episode int, apply func(id string)) (err error) {
	defer func() { err = s.fail(err) }()
	if len(ids) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fresh(ctx); err != nil {
		return fmt.Errorf("memory/local: %s: %w", op, err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory/local: %s: %w", op, err)
	}
	defer tx.Rollback()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, stmt, episode, id); err != nil {
			return fmt.Errorf("memory/local: %s %s: %w", op, id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory/local: %s: %w", op, err)
	}
	for _, id := range ids {
		apply(id)
	}
	return nil
}

// Stats summarises the selected cards.
func (s *Store) Stats(ctx context.Context, f memory.Filter) (_ memory.Stats, err error) {
	defer func() { err = s.fail(err) }()
	return memory.StatsOf(ctx, s, f, s.emb)
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }
