package corpus

import "sync"

// Cache loads each corpus once (a generated corpus is built once) from its
// Library; it is safe for concurrent use.
type Cache struct {
	Library Library
	mu      sync.Mutex
	m       map[string]*Corpus
}

// Load returns the corpus ref names, loading it the first time.
func (c *Cache) Load(ref string) (*Corpus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cp, ok := c.m[ref]; ok {
		return cp, nil
	}
	cp, err := c.Library.Load(ref)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[string]*Corpus{}
	}
	c.m[ref] = cp
	return cp, nil
}
