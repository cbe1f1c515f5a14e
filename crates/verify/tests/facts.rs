//! The XML reader on hand-written excerpts of RenderDoc's XML (no GPU, no RenderDoc).

use tessera_verify::facts::parse;

/// The parser on a hand-written excerpt of RenderDoc's XML (no GPU, no RenderDoc).
#[test]
fn parser_reads_render_passes_names_and_labels() {
    let xml = r#"<rdc><chunks>
      <chunk name="vkCreateRenderPass2">
        <struct name="CreateInfo">
          <uint name="attachmentCount">1</uint>
          <array name="pAttachments"><struct>
            <enum name="format" string="VK_FORMAT_R8G8B8A8_UNORM">37</enum>
            <enum name="loadOp" string="VK_ATTACHMENT_LOAD_OP_CLEAR">1</enum>
            <enum name="storeOp" string="VK_ATTACHMENT_STORE_OP_STORE">0</enum>
          </struct></array>
          <uint name="subpassCount">2</uint>
          <array name="pSubpasses">
            <struct><array name="pInputAttachments" />
              <array name="pColorAttachments"><struct><uint name="attachment">0</uint></struct></array>
              <array name="pResolveAttachments"><struct><uint name="attachment">4294967295</uint></struct></array>
              <null name="pDepthStencilAttachment" /></struct>
            <struct><array name="pInputAttachments"><struct><uint name="attachment">0</uint></struct></array>
              <array name="pColorAttachments" />
              <struct name="pDepthStencilAttachment"><uint name="attachment">1</uint></struct></struct>
          </array>
          <uint name="dependencyCount">1</uint>
          <array name="pDependencies"><struct>
            <uint name="srcSubpass">0</uint><uint name="dstSubpass">1</uint>
            <enum name="dependencyFlags" string="VK_DEPENDENCY_BY_REGION_BIT">1</enum>
          </struct></array>
        </struct>
        <ResourceId name="RenderPass">7</ResourceId>
      </chunk>
      <chunk name="vkSetDebugUtilsObjectNameEXT">
        <ResourceId name="Object">7</ResourceId><string name="ObjectName">render pass [a, b]</string>
      </chunk>
      <chunk name="vkCmdBeginRenderPass2"><ResourceId name="commandBuffer">3</ResourceId>
        <struct name="RenderPassBegin"><ResourceId name="renderPass">7</ResourceId>
        <ResourceId name="framebuffer">8</ResourceId></struct></chunk>
      <chunk name="vkCmdBeginDebugUtilsLabelEXT"><ResourceId name="commandBuffer">3</ResourceId>
        <struct name="Label"><string name="pLabelName">a</string></struct></chunk>
      <chunk name="vkCmdNextSubpass2"/>
      <chunk name="vkCmdBeginDebugUtilsLabelEXT"><ResourceId name="commandBuffer">3</ResourceId>
        <struct name="Label"><string name="pLabelName">b</string></struct></chunk>
      <chunk name="vkCmdEndRenderPass2"/>
      <chunk name="vkCmdBeginDebugUtilsLabelEXT"><ResourceId name="commandBuffer">3</ResourceId>
        <struct name="Label"><string name="pLabelName">c</string></struct></chunk>
    </chunks></rdc>"#;
    let f = parse(xml).unwrap();
    let rp = &f.render_passes[&7];
    assert_eq!(
        (rp.attachment_count, rp.subpass_count, rp.dependency_count),
        (1, 2, 1)
    );
    assert_eq!(rp.attachments[0].load_op, "VK_ATTACHMENT_LOAD_OP_CLEAR");
    assert_eq!(rp.attachments[0].store_op, "VK_ATTACHMENT_STORE_OP_STORE");
    assert_eq!(rp.dependencies, vec![(0, 1, true)]);
    assert_eq!(rp.subpasses.len(), 2);
    assert_eq!(
        (
            &rp.subpasses[0].color,
            &rp.subpasses[0].resolve,
            rp.subpasses[0].depth
        ),
        (&vec![0], &vec![], None)
    );
    assert_eq!(
        (&rp.subpasses[1].input, rp.subpasses[1].depth),
        (&vec![0], Some(1))
    );
    assert_eq!(f.names[&7], "render pass [a, b]");
    assert_eq!(f.begins.len(), 1);
    assert_eq!((f.begins[0].render_pass, f.begins[0].framebuffer), (7, 8));
    assert_eq!(
        f.begins[0].labels,
        vec![vec!["a".to_string()], vec!["b".to_string()]]
    );
    assert_eq!(f.labels.len(), 3);
    assert!(parse("<rdc><chunk").is_err());
}
