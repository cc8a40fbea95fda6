package action

import (
	"path/filepath"
	"runtime"

	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/resultcache"
)

// CacheOptions say where validation results are kept between runs
// (internal/resultcache).
type CacheOptions struct {
	// Dir holds the results (default: routeguard/validation in the user
	// cache directory, from $XDG_CACHE_HOME or $HOME).
	Dir string
	// Off keeps no results and reads none.
	Off bool
}

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
	if dir == "" {
		base := userCacheDir(env.Getenv)
		if base == "" {
			return rc, nil
		}
		dir = filepath.Join(base, "routeguard", "validation")
	}
	rc.dir = dir
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
	if s.Corrupt > 0 {
		out = append(out, notice.Notef("%d entries of the validation cache %s did not verify (cut short or altered); they were removed and the objects validated again", s.Corrupt, rc.dir))
	}
	if s.WriteErr != nil {
		out = append(out, notice.Notef("the validation cache %s could not be written (%v); results were not kept", rc.dir, s.WriteErr))
	}
	return out
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
