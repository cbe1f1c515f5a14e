# Runs inside qrenderdoc (qrenderdoc --ui-py qrenderdoc_shot.py), driven by qrenderdoc-shot.sh.
#
# Loads a capture, selects one event, arranges the panels and then writes a "ready" file that
# the shell script waits for before it takes the screenshot. Everything comes in through the
# environment:
#   SHOT_RDC     the capture to open
#   SHOT_READY   file written when the window is ready ("ok ..."), or on failure ("error ...")
#   SHOT_LOG     a log of what was done (the selected event, the render pass's attachments)
#   SHOT_FILTER  which event to select: an event ID, or a case-insensitive part of an event's
#                name as the Event Browser shows it (default: vkCmdBeginRenderPass)
#   SHOT_VIEW    renderpass (Resource Inspector on the event's VkRenderPass, attachments
#                expanded down to loadOp/storeOp), pipeline (Pipeline State, FB stage), or
#                resource:NAME (Resource Inspector on the resource of that name, its
#                creation parameters expanded to the usage flags, e.g. resource:albedo)
#   SHOT_STAGE   the Pipeline State's stage: ColorDepthOutput (FB, default), PixelShader (FS),
#                VertexInput, VertexShader, Rasterizer, ComputeShader, ...
#   SHOT_TEXTURE_VIEWER=1  keep the Texture Viewer open (see the lavapipe crash below)
#
# Only qrenderdoc's own Python API is used (pyrenderdoc, renderdoc, qrenderdoc, MiniQtHelper):
# the Debian package has no PySide2.
import os
import traceback

import renderdoc as rd
import qrenderdoc as qrd

ctx = pyrenderdoc  # noqa: F821 (qrenderdoc defines it)
mqt = ctx.Extensions().GetMiniQtHelper()

RDC = os.environ["SHOT_RDC"]
READY = os.environ["SHOT_READY"]
LOG = open(os.environ.get("SHOT_LOG", os.devnull), "w", buffering=1)
FILTER = os.environ.get("SHOT_FILTER") or "vkCmdBeginRenderPass"
VIEW = os.environ.get("SHOT_VIEW") or "renderpass"


def log(msg):
    LOG.write(msg + "\n")


def ready(status):
    with open(READY + ".tmp", "w") as f:
        f.write(status + "\n")
    os.replace(READY + ".tmp", READY)


def walk(actions):
    for a in actions:
        yield a
        yield from walk(a.children)


def pick_action():
    sf = ctx.GetStructuredFile()
    actions = list(walk(ctx.CurRootActions()))
    if FILTER.isdigit():
        eid = int(FILTER)
        for a in actions:
            if a.eventId == eid:
                return a
        # An API event that is not an action (a barrier, a bind): select it as such.
        return eid
    needle = FILTER.lower()
    for a in actions:
        if needle in a.GetName(sf).lower():
            return a
    return None


def render_pass_create_chunk(rp):
    for ch in ctx.GetStructuredFile().chunks:
        if ch.name.startswith("vkCreateRenderPass"):
            out = ch.FindChild("RenderPass")
            if out is not None and out.AsResourceId() == rp:
                return ch
    return None


def hide_panel(parent, name):
    # The Resource Inspector's sub-panels live in ToolWindowManager areas: hide the area
    # (two levels up from the named widget) so that the others take its space.
    w = mqt.FindChildByName(parent, name)
    if w is None:
        log("no widget %s" % name)
        return
    area = mqt.GetParent(mqt.GetParent(w))
    if area is not None and mqt.GetWidgetType(area) == "ToolWindowManagerArea":
        mqt.SetWidgetVisible(area, False)


def arrange_docks(share):
    # Event Browser (with the API Inspector under it) left of the tool area.
    pv = ctx.GetPipelineViewer()
    ctx.AddDockWindow(ctx.GetEventBrowser().Widget(), qrd.DockReference.LeftOf, pv.Widget(), share)
    ctx.AddDockWindow(ctx.GetAPIInspector().Widget(), qrd.DockReference.BottomOf,
                      ctx.GetEventBrowser().Widget(), 0.3)


def show_render_pass(rp):
    ctx.ShowResourceInspector()
    ri = ctx.GetResourceInspector()
    ri.Inspect(rp)
    ctx.RaiseDockWindow(ri.Widget())
    for name in ("relatedResources", "resourceUsage", "resourceListWidget"):
        hide_panel(ri.Widget(), name)
    ch = render_pass_create_chunk(rp)
    if ch is None:
        log("no vkCreateRenderPass chunk for %s" % rp)
        return False
    atts = ch.FindChild("CreateInfo").FindChild("pAttachments")
    for k in range(atts.NumChildren()):
        att = atts.GetChild(k)
        def short(field):
            text = att.FindChild(field).AsString()
            for prefix in ("VK_ATTACHMENT_LOAD_OP_", "VK_ATTACHMENT_STORE_OP_", "VK_IMAGE_LAYOUT_",
                           "VK_FORMAT_"):
                text = text.replace(prefix, "")
            return text
        log("attachment %d: %s load %s store %s, stencil load %s store %s, %s -> %s" % (
            k, short("format"), short("loadOp"), short("storeOp"), short("stencilLoadOp"),
            short("stencilStoreOp"), short("initialLayout"), short("finalLayout")))
        ri.RevealParameter(att.FindChild("storeOp"))
    # Scroll back to the top: the first attachment's format.
    if atts.NumChildren():
        ri.RevealParameter(atts.GetChild(0).FindChild("format"))
    return True


def show_named_resource(name):
    res = [r for r in ctx.GetResources() if ctx.GetResourceName(r.resourceId) == name]
    if not res:
        log("no resource named %r; names: %s" % (
            name, ", ".join(sorted(ctx.GetResourceName(r.resourceId) for r in ctx.GetResources()))))
        return False
    rid = res[0].resourceId
    ctx.ShowResourceInspector()
    ri = ctx.GetResourceInspector()
    ri.Inspect(rid)
    ctx.RaiseDockWindow(ri.Widget())
    for panel in ("relatedResources", "resourceUsage", "resourceListWidget"):
        hide_panel(ri.Widget(), panel)
    for ch in ctx.GetStructuredFile().chunks:
        if not ch.name.startswith("vkCreate"):
            continue
        made = [ch.GetChild(i) for i in range(ch.NumChildren())]
        if not any(c.type.basetype == rd.SDBasic.Resource and c.AsResourceId() == rid
                   for c in made if c.name != "device"):
            continue
        info = ch.FindChild("CreateInfo")
        usage = info.FindChild("usage") if info is not None else None
        if usage is not None:
            log("%s %s usage: %s" % (ch.name, name, usage.AsString()))
            ri.RevealParameter(usage)
        elif info is not None and info.NumChildren():
            ri.RevealParameter(info.GetChild(0))
        break
    return True


class ShotViewer(qrd.CaptureViewer):
    def __init__(self):
        qrd.CaptureViewer.__init__(self)
        self.done = False

    def OnCaptureLoaded(self):
        if self.done:
            return
        self.done = True
        try:
            self.arrange()
        except Exception:
            log(traceback.format_exc())
            ready("error: " + traceback.format_exc().replace("\n", " | "))

    def arrange(self):
        sf = ctx.GetStructuredFile()
        log("capture loaded: %s" % RDC)
        for a in walk(ctx.CurRootActions()):
            log("action %d %s" % (a.eventId, a.GetName(sf)))

        # Workaround: with the Texture Viewer open, moving to any event inside the frame's
        # command buffer makes lavapipe (Mesa 22.3, Debian 12) crash in its queue thread while
        # RenderDoc 1.24 draws the texture display. Closed, it never draws.
        # SHOT_TEXTURE_VIEWER=1 leaves it open (to reproduce the crash).
        if not os.environ.get("SHOT_TEXTURE_VIEWER"):
            mqt.CloseToplevelWidget(ctx.GetTextureViewer().Widget())

        ctx.ShowPipelineViewer()
        pv = ctx.GetPipelineViewer()
        ctx.RaiseDockWindow(pv.Widget())

        target = pick_action()
        if target is None:
            ready("error: no event matches %r" % FILTER)
            return
        eid = target if isinstance(target, int) else target.eventId
        name = "" if isinstance(target, int) else target.GetName(sf)
        log("selecting event %d %s" % (eid, name))
        ctx.SetEventID([], eid, eid, True)
        stage = os.environ.get("SHOT_STAGE") or "ColorDepthOutput"
        if not hasattr(qrd.PipelineStage, stage):
            ready("error: SHOT_STAGE %r is none of %s" % (stage, ", ".join(
                n for n in dir(qrd.PipelineStage) if n[0].isupper())))
            return
        pv.SelectPipelineStage(getattr(qrd.PipelineStage, stage))
        arrange_docks(0.3 if VIEW == "pipeline" else 0.4)

        shown = "pipeline"
        if VIEW == "renderpass":
            rp = rd.ResourceId.Null()
            if ctx.APIProps().pipelineType == rd.GraphicsAPI.Vulkan:
                rp = ctx.CurVulkanPipelineState().currentPass.renderpass.resourceId
            if rp == rd.ResourceId.Null():
                log("event %d is not inside a VkRenderPass: showing the Pipeline State" % eid)
            elif show_render_pass(rp):
                shown = "renderpass %s" % ctx.GetResourceName(rp)
        elif VIEW.startswith("resource:"):
            if not show_named_resource(VIEW[len("resource:"):]):
                ready("error: no resource named %r (see the log)" % VIEW[len("resource:"):])
                return
            shown = VIEW
        elif VIEW != "pipeline":
            ready("error: unknown SHOT_VIEW %r (renderpass, pipeline, resource:NAME)" % VIEW)
            return
        status = "ok eid=%d name=%s view=%s" % (eid, name, shown)
        log(status)

        # Report ready once the replay thread has done everything queued so far, back on the
        # UI thread so that the panels have taken the results.
        def on_replay(_r):
            mqt.InvokeOntoUIThread(lambda: ready(status))
        ctx.Replay().AsyncInvoke(on_replay)

    def OnCaptureClosed(self):
        pass

    def OnSelectedEventChanged(self, event):
        pass

    def OnEventChanged(self, event):
        pass


try:
    viewer = ShotViewer()
    ctx.AddCaptureViewer(viewer)
    # Loaded from here, not from the command line, so that the viewer is registered first.
    ctx.LoadCapture(RDC, rd.ReplayOptions(), RDC, False, True)
    log("LoadCapture called")
except Exception:
    log(traceback.format_exc())
    ready("error: " + traceback.format_exc().replace("\n", " | "))
