package dev.gyro.agent;

import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.field.FieldList;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.pool.TypePool;

/**
 * The code Gyro adds to a JDBC driver's {@code java.sql.Connection connect(String url, Properties info)}, at its start:
 * for a URL the driver takes that is not one of the instances' databases, Gyro's connection is returned instead and the
 * driver does not connect at all ({@link Takeover#instead}, through the bridge), so the database the application's
 * configuration names need not exist; whichever way the application reached the driver (DriverManager, a DataSource, a
 * pool).
 *
 * <p>It is written into the method's bytecode (as {@code Connection c = Bridge.instead(this, url); if (c != null)
 * return c;}) rather than as a ByteBuddy {@code Advice}, because a driver that narrows {@code connect}'s return type to
 * its own class (MariaDB's returns {@code org.mariadb.jdbc.Connection}) has {@code Driver}'s method only as a
 * compiler-made bridge to the narrow one, which Gyro's connection is not an instance of; ByteBuddy leaves bridge
 * methods out of what its advice reaches, a class visitor sees every method.
 */
final class ConnectAdvice extends AsmVisitorWrapper.AbstractBase {

    private static final String NAME = "connect";
    private static final String DESCRIPTOR = "(Ljava/lang/String;Ljava/util/Properties;)Ljava/sql/Connection;";
    private static final String BRIDGE = "dev/gyro/agent/bridge/Bridge";
    private static final String INSTEAD = "(Ljava/sql/Driver;Ljava/lang/String;)Ljava/sql/Connection;";

    @Override
    public int mergeReader(int flags) {
        return flags | ClassReader.EXPAND_FRAMES; // the frame written below is an expanded one
    }

    @Override
    public ClassVisitor wrap(TypeDescription type, ClassVisitor visitor, Implementation.Context context, TypePool pool,
                             FieldList<FieldDescription.InDefinedShape> fields, MethodList<?> methods, int writerFlags,
                             int readerFlags) {
        String owner = type.getInternalName();
        return new ClassVisitor(Opcodes.ASM9, visitor) {
            private boolean frames;

            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                frames = (version & 0xFFFF) >= Opcodes.V1_6; // older class files carry no stack map frames
                super.visit(version, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                if (!NAME.equals(name) || !DESCRIPTOR.equals(descriptor) || (access & Opcodes.ACC_ABSTRACT) != 0
                        || (access & Opcodes.ACC_STATIC) != 0)
                    return mv;
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitCode() {
                        super.visitCode();
                        Label connect = new Label();
                        super.visitVarInsn(Opcodes.ALOAD, 0);
                        super.visitVarInsn(Opcodes.ALOAD, 1);
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "instead", INSTEAD, false);
                        super.visitInsn(Opcodes.DUP);
                        super.visitJumpInsn(Opcodes.IFNULL, connect);
                        super.visitInsn(Opcodes.ARETURN);
                        super.visitLabel(connect);
                        if (frames)
                            super.visitFrame(Opcodes.F_NEW, 3, new Object[] {owner, "java/lang/String",
                                    "java/util/Properties"}, 1, new Object[] {"java/sql/Connection"});
                        super.visitInsn(Opcodes.POP);
                    }

                    @Override
                    public void visitMaxs(int maxStack, int maxLocals) {
                        super.visitMaxs(Math.max(maxStack, 2), Math.max(maxLocals, 3));
                    }
                };
            }
        };
    }
}
