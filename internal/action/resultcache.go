package action

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/resultcache"
)

// CacheOptions say where validation results are kept between runs
// (internal/resultcache).
type CacheOptions struct {
	// Dir holds the results (default: $ROUTEGUARD_CACHE_DIR, else
	// routeguard/validation in the user cache directory, from
	// $XDG_CACHE_HOME or $HOME, unless NamedOnly).
	Dir string
	// Off keeps no results and reads none.
	Off bool
	// NamedOnly caches only in a directory named by Dir or
	// $ROUTEGUARD_CACHE_DIR, never in the user cache directory (cmp
	// generate: the sidecar's home is on its read-only root file system).
	NamedOnly bool
	// Outside are directories the cache must not be in (the repository
	// being read: a pack it holds could replay results it forged).
	Outside []string
}

// CacheDirEnv names the cache directory when no flag does.
const CacheDirEnv = "ROUTEGUARD_CACHE_DIR"

// runCache is the result cache of one action and what it says about it.
type runCache struct {
	dir   string
	cache *resultcache.Cache // nil: none
}

// open opens the cache of o. A cache that cannot be opened is a notice,
// never a failed run.
func (o CacheOptions) open(env Env) (*runCache, []notice.Notice) {
	rc := &runCache{}
	if o.Off {
		return rc, nil
	}
	dir := o.Dir
	if dir == "" && env.Getenv != nil {
		dir = env.Getenv(CacheDirEnv)
	}
	if dir == "" {
		base := userCacheDir(env.Getenv)
		if base == "" || o.NamedOnly {
			return rc, nil
		}
		dir = filepath.Join(base, "routeguard", "validation")
	}
	rc.dir = dir
	if err := outside(env, dir, o.Outside); err != nil {
		return rc, []notice.Notice{notice.Notef("validation results are not cached: %v", err)}
	}
	build, err := resultcache.BuildID()
	if err == nil {
		rc.cache, err = resultcache.Open(dir, resultcache.Options{Build: build})
	}
	if err != nil {
		return rc, []notice.Notice{notice.Notef("validation results are not cached: %v", err)}
	}
	return rc, nil
}

// close bounds the directory and says what went wrong with it.
func (rc *runCache) close() []notice.Notice {
	if rc.cache == nil {
		return nil
	}
	s := rc.cache.Close()
	var out []notice.Notice
	if n := corruptNotice(rc.dir, s); n != "" {
		out = append(out, notice.Notef("%s", n))
	}
	if s.WriteErr != nil {
		out = append(out, notice.Notef("the validation cache %s could not be written (%v); results were not kept", rc.dir, s.WriteErr))
	}
	return out
}

// corruptNotice says what of the cache in dir did not verify and what was
// removed for it: a pack goes whole, for one of its entries or for its
// index ("" when nothing did).
func corruptNotice(dir string, s resultcache.Stats) string {
	if s.Corrupt == 0 && s.CorruptPacks == 0 {
		return ""
	}
	were := pick(s.CorruptPacks, "was", "were")
	if s.Corrupt == 0 {
		return fmt.Sprintf("%d %s of the validation cache %s did not verify (cut short, altered or not routeguard's) and %s removed; the objects were validated again",
			s.CorruptPacks, pick(s.CorruptPacks, "pack", "packs"), dir, were)
	}
	return fmt.Sprintf("%d %s of the validation cache %s did not verify (cut short or altered); %d %s removed with every entry %s held, and the objects validated again",
		s.Corrupt, pick(s.Corrupt, "entry", "entries"), dir, s.CorruptPacks, pick(s.CorruptPacks, "pack "+were, "packs "+were), pick(s.CorruptPacks, "it", "they"))
}

// pick is one when n is 1, else many.
func pick(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// userCacheDir is os.UserCacheDir from the action's environment ("" when
// it names none).
func userCacheDir(getenv func(string) string) string {
	if getenv == nil {
		return ""
	}
	switch runtime.GOOS {
	case "windows":
		return getenv("LocalAppData")
	case "darwin", "ios":
		if home := getenv("HOME"); home != "" {
			return filepath.Join(home, "Library", "Caches")
		}
		return ""
	}
	if dir := getenv("XDG_CACHE_HOME"); filepath.IsAbs(dir) {
		return dir
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".cache")
	}
	return ""
}

// outside says why dir may not hold the cache: it is (or, through a
// symbolic link, resolves to a place) inside one of roots.
func outside(env Env, dir string, roots []string) error {
	if len(roots) == 0 {
		return nil
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) && env.Getwd != nil {
			if cwd, err := env.Getwd(); err == nil {
				p = filepath.Join(cwd, p)
			}
		}
		return resolved(filepath.Clean(p))
	}
	d := abs(dir)
	for _, r := range roots {
		if r == "" {
			continue
		}
		root := abs(r)
		if rel, err := filepath.Rel(root, d); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("the cache directory %s is inside the repository being read (%s); name one outside it (%s, or --cache-dir)", dir, r, CacheDirEnv)
		}
	}
	return nil
}

// resolved is p with the symbolic links of its longest existing prefix
// resolved (the rest does not exist yet).
func resolved(p string) string {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
