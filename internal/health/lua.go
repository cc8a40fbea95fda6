package health

import (
	"context"
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// LuaBudget is the time Argo CD's VM gives one script (util/lua runLua).
const LuaBudget = time.Second

// luaBudget is the budget EvalLua applies: LuaBudget, except in this
// package's tests, whose verdicts must not depend on how loaded the
// machine is (main_test.go).
var luaBudget = LuaBudget

// validStatuses are the statuses Argo CD accepts from a health script; any
// other becomes Unknown (util/lua isValidHealthStatusCode).
var validStatuses = map[string]bool{
	"Healthy": true, "Progressing": true, "Degraded": true,
	"Suspended": true, "Missing": true, "Unknown": true,
}

// EvalLua runs a health script on obj in a VM set up like Argo CD's
// application controller sets up a custom check's: no standard libraries
// opened except package, base, table and a safe os (time and date), the object
// as the global obj, and a one-second budget. The result is read like Argo CD
// reads it: an invalid status becomes Unknown, a nil result is an empty verdict.
func EvalLua(ctx context.Context, script string, obj map[string]any) (Verdict, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.OsLibName, openSafeOs},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return Verdict{}, fmt.Errorf("open Lua library %s: %w", lib.name, err)
		}
	}
	l.PreloadModule(lua.OsLibName, safeOsLoader)
	ctx, cancel := context.WithTimeout(ctx, luaBudget)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return Verdict{}, fmt.Errorf("run health.lua: %w", err)
	}
	ret := l.Get(-1)
	switch ret.Type() {
	case lua.LTNil:
		return Verdict{}, nil
	case lua.LTTable:
	default:
		return Verdict{}, fmt.Errorf("expect table output from Lua script, not %s", ret.Type())
	}
	t := ret.(*lua.LTable)
	var v Verdict
	if s, ok := t.RawGetString("status").(lua.LString); ok {
		v.Status = string(s)
	}
	if m, ok := t.RawGetString("message").(lua.LString); ok {
		v.Message = string(m)
	}
	if !validStatuses[v.Status] {
		return Verdict{Status: "Unknown", Message: "Lua returned an invalid health status"}, nil
	}
	return v, nil
}

// toLua converts JSON-compatible values like Argo CD's decodeValue does.
func toLua(l *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case int:
		return lua.LNumber(v)
	case int32:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case []any:
		arr := l.CreateTable(len(v), 0)
		for _, item := range v {
			arr.Append(toLua(l, item))
		}
		return arr
	case map[string]any:
		tbl := l.CreateTable(0, len(v))
		for key, item := range v {
			tbl.RawSetH(lua.LString(key), toLua(l, item))
		}
		return tbl
	}
	return lua.LNil
}
