package health

import (
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The safe os library Argo CD gives health scripts (util/lua/oslib_safe.go):
// only os.time and os.date, with the same behaviour, including that
// os.date(format, t) formats t in local time even when format starts with "!",
// and that opening the library registers time and date into the table module
// (Argo CD passes lua.TabLibName), so there is no global os: scripts must
// `local os = require("os")`, which the preloaded loader answers.

func openSafeOs(l *lua.LState) int {
	l.Push(l.RegisterModule(lua.TabLibName, safeOsFuncs))
	return 1
}

func safeOsLoader(l *lua.LState) int {
	l.Push(l.SetFuncs(l.NewTable(), safeOsFuncs))
	return 1
}

var safeOsFuncs = map[string]lua.LGFunction{"time": osTime, "date": osDate}

func osTime(l *lua.LState) int {
	if l.GetTop() == 0 {
		l.Push(lua.LNumber(time.Now().Unix()))
		return 1
	}
	tbl := l.CheckTable(1)
	field := func(key string, def int) int {
		if n, ok := tbl.RawGetString(key).(lua.LNumber); ok {
			return int(n)
		}
		return def
	}
	t := time.Date(field("year", -1), time.Month(field("month", -1)), field("day", -1),
		field("hour", 12), field("min", 0), field("sec", 0), 0, time.Local)
	l.Push(lua.LNumber(t.Unix()))
	return 1
}

func osDate(l *lua.LState) int {
	t := time.Now()
	format := "%c"
	if l.GetTop() >= 1 {
		format = l.CheckString(1)
		if strings.HasPrefix(format, "!") {
			t = time.Now().UTC()
			format = strings.TrimLeft(format, "!")
		}
		if l.GetTop() >= 2 {
			t = time.Unix(l.CheckInt64(2), 0)
		}
		if strings.HasPrefix(format, "*t") {
			ret := l.NewTable()
			for k, v := range map[string]int{
				"year": t.Year(), "month": int(t.Month()), "day": t.Day(), "hour": t.Hour(),
				"min": t.Minute(), "sec": t.Second(), "wday": int(t.Weekday()) + 1, "yday": 0,
			} {
				ret.RawSetString(k, lua.LNumber(v))
			}
			ret.RawSetString("isdst", lua.LFalse)
			l.Push(ret)
			return 1
		}
	}
	l.Push(lua.LString(strftime(t, format)))
	return 1
}

var strftimeToGo = map[byte]string{
	'a': "mon", 'A': "Monday", 'b': "Jan", 'B': "January", 'c': "02 Jan 06 15:04 MST", 'd': "02",
	'F': "2006-01-02", 'H': "15", 'I': "03", 'm': "01", 'M': "04", 'p': "PM", 'P': "pm", 'S': "05",
	'x': "15/04/05", 'X': "15:04:05", 'y': "06", 'Y': "2006", 'z': "-0700", 'Z': "MST",
}

func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		c = format[i]
		if layout, ok := strftimeToGo[c]; ok {
			b.WriteString(t.Format(layout))
		} else if c == 'w' {
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		} else {
			b.WriteByte('%')
			b.WriteByte(c)
		}
	}
	return b.String()
}
