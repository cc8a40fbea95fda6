-- routeguard health check for networking.istio.io/ServiceEntry (Argo CD resource
-- customization). Generated from lua-health/_templates/istio.lua; edit the template.
--
-- Istio writes status only when istiod runs with PILOT_ENABLE_STATUS=true (off by
-- default), so an object without status is Healthy: there is nothing to check. With
-- status on: status.observedGeneration (an integer or a numeric string) different from
-- metadata.generation is Progressing; a validationMessages entry of level ERROR is
-- Degraded; WARNING and INFO are named in a Healthy message; a Reconciled condition that
-- is not True (for the current generation) is Progressing.
local KIND = "ServiceEntry"

local hs = {}

local function isList(v)
  return type(v) == "table" and (#v > 0 or next(v) == nil)
end

local function isMap(v)
  return type(v) == "table" and #v == 0
end

local function str(v, default)
  if type(v) == "string" and v ~= "" then
    return v
  end
  if type(v) == "number" then
    return tostring(v)
  end
  return default
end

local meta = obj.metadata
if type(meta) ~= "table" then
  meta = {}
end
local generation = meta.generation

local status = obj.status
if status == nil or (isMap(status) and next(status) == nil) then
  hs.status = "Healthy"
  hs.message = "no status reported: Istio status reporting is off (the default); set PILOT_ENABLE_STATUS=true on istiod to have validation messages and reconciliation checked"
  return hs
end
if not isMap(status) then
  hs.status = "Degraded"
  hs.message = KIND .. " status is malformed: expected an object, got " .. (isList(status) and "a list" or type(status))
  return hs
end

local observed = tonumber(status.observedGeneration)
if observed ~= nil and type(generation) == "number" and observed ~= generation then
  hs.status = "Progressing"
  hs.message = "waiting for Istio to process generation " .. tostring(generation) .. " (status is for generation " .. tostring(observed) .. ")"
  return hs
end

local messages = status.validationMessages
if messages == nil then
  messages = {}
end
local conds = status.conditions
if conds == nil then
  conds = {}
end
if not isList(messages) or not isList(conds) then
  hs.status = "Degraded"
  hs.message = KIND .. " status is malformed: status.validationMessages and status.conditions must be lists"
  return hs
end

local levels = { ERROR = {}, WARNING = {}, INFO = {} }
for i, m in ipairs(messages) do
  if not isMap(m) then
    hs.status = "Degraded"
    hs.message = KIND .. " status is malformed: status.validationMessages[" .. (i - 1) .. "] is not an object"
    return hs
  end
  local level = str(m.level, "")
  if levels[level] ~= nil then
    local t = m.type
    if not isMap(t) then
      t = {}
    end
    local text = str(t.code, "(no code)") .. " " .. str(t.name, "(no name)")
    if str(m.documentationUrl, nil) ~= nil then
      text = text .. " (" .. str(m.documentationUrl, "") .. ")"
    end
    table.insert(levels[level], text)
  end
end

if #levels.ERROR > 0 then
  hs.status = "Degraded"
  hs.message = "Istio reports ERROR " .. table.concat(levels.ERROR, "; ERROR ")
  return hs
end

local base = "no Reconciled condition reported"
for _, c in ipairs(conds) do
  if isMap(c) and c.type == "Reconciled" then
    local cg = tonumber(c.observedGeneration)
    local text = "Reconciled=" .. str(c.status, "Unknown") .. " (" .. str(c.reason, "no reason") .. ")"
    if str(c.message, nil) ~= nil then
      text = text .. ": " .. str(c.message, "")
    end
    if cg ~= nil and type(generation) == "number" and cg < generation then
      hs.status = "Progressing"
      hs.message = "waiting for Istio to reconcile generation " .. tostring(generation) .. " (Reconciled is for generation " .. tostring(cg) .. ")"
      return hs
    end
    if c.status ~= "True" then
      hs.status = "Progressing"
      hs.message = "waiting for Istio: " .. text
      return hs
    end
    base = "reconciled by Istio"
  end
end

hs.status = "Healthy"
hs.message = base
if #levels.WARNING > 0 then
  hs.message = hs.message .. "; WARNING " .. table.concat(levels.WARNING, "; WARNING ")
end
if #levels.INFO > 0 then
  hs.message = hs.message .. "; INFO " .. table.concat(levels.INFO, "; INFO ")
end
return hs
